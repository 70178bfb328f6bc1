import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmod, mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * A tmux that stops answering: the deadline still holds, and a hung call is a typed error, never
 * "no such session". The stand-in tmux first on PATH hangs on the calls that inspect a pane and
 * hands everything else to the real tmux.
 */
let sb: Sandbox;
let hangingPath: string;
/** Each hung call appends its pid here (the sleep it becomes keeps that pid). */
let hungPids: string;
beforeAll(async () => {
  sb = await createSandbox();
  const realTmux = Bun.which("tmux");
  if (!realTmux) throw new Error("tmux is not installed");
  const dir = join(sb.dir, "hanging-bin");
  await mkdir(dir);
  hungPids = join(sb.dir, "hung-pids");
  const script = `#!/bin/sh\ncase "$*" in *display-message*|*capture-pane*) echo $$ >> '${hungPids}'; exec sleep 600;; esac\nexec "${realTmux}" "$@"\n`;
  await writeFile(join(dir, "tmux"), script);
  await chmod(join(dir, "tmux"), 0o755);
  hangingPath = `${dir}:${sb.env.PATH}`;
});
afterAll(async () => {
  for (const pid of await readHungPids()) if (isLiving(pid)) process.kill(pid, "SIGKILL");
  await sb.dispose();
});

async function readHungPids(): Promise<number[]> {
  const text = await readFile(hungPids, "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).map(Number);
}

/** Running, not a zombie waiting for init to reap it. */
function isLiving(pid: number): boolean {
  const stat = Bun.spawnSync(["ps", "-o", "stat=", "-p", String(pid)])
    .stdout.toString()
    .trim();
  return stat !== "" && !stat.startsWith("Z");
}

describe("when tmux hangs", () => {
  test("wait still returns timeout (124) at its deadline", async () => {
    expect((await sb.umbel(["spawn", "h"])).code).toBe(0);
    expect((await sb.umbel(["send", "h", "fake:hang"])).code).toBe(0);
    const started = Date.now();
    const r = await sb.umbel(["wait", "h", "--timeout", "2s", "--json"], { env: { PATH: hangingPath } });
    const elapsed = Date.now() - started;
    expect(JSON.parse(r.stdout)).toMatchObject({ reason: "timeout", exitCode: 124 });
    expect(r.code).toBe(124);
    expect(elapsed).toBeLessThan(15_000); // a generous bound: the point is "not 30 minutes", not speed
  });

  test("a hung call is a typed tmux-timeout error, not 'no such worker'", async () => {
    const r = await sb.umbel(["status", "h", "--json"], {
      env: { PATH: hangingPath, UMBEL_TMUX_TIMEOUT: "1s" },
    });
    expect(r.stderr).toContain("tmux did not answer within 1000 ms");
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "tmux-timeout", class: "TmuxTimeoutError" });
    expect(r.code).toBe(1);
  });

  test("ls (and ls --json) fails with the typed tmux-timeout error: a hang never reads as an empty fleet", async () => {
    const env = { PATH: hangingPath, UMBEL_TMUX_TIMEOUT: "1s" };
    const text = await sb.umbel(["ls"], { env });
    expect(text.stdout).toBe("");
    expect(text.stderr).toContain("tmux did not answer within 1000 ms");
    expect(text.code).toBe(1);
    const json = await sb.umbel(["ls", "--json"], { env });
    expect(JSON.parse(json.stdout).error).toMatchObject({ code: "tmux-timeout", class: "TmuxTimeoutError" });
    expect(json.code).toBe(1);
  });

  test("no hung tmux call outlives the umbel that made it", async () => {
    const pids = await readHungPids();
    expect(pids.length).toBeGreaterThan(0);
    await eventually(() => pids.every((pid) => !isLiving(pid)), 2000, "the hung tmux calls to end");
  });
});
