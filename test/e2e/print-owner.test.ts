import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, eventually, isRunning, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

setDefaultTimeout(60_000);

/**
 * An anonymous `umbel -p` worker belongs to its -p (issue 22 item 11: a -p killed by SIGHUP or
 * SIGKILL left a live worker that nothing removed, 10 of 10 each). SIGHUP (a closed terminal, a
 * dropped ssh) is an interrupt: the worker goes as on SIGINT. After a SIGKILL the worker's own
 * wrapper ends its TUI, ls shows it orphaned, doctor names it and prune removes it; a spare the -p
 * claimed goes the same way. SIGINT while the prompt is being delivered exits 130.
 */
type Row = { name: string; state: string; reason: string | null; pid: number | null };

/** `umbel -p …` as a child, its stderr collected as it comes. */
function startPrint(sb: Sandbox, args: string[], env: Record<string, string> = {}) {
  const child = Bun.spawn([UMBEL, ...args], {
    cwd: sb.work,
    env: { ...sb.env, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  let stderr = "";
  const reading = (async () => {
    for await (const chunk of child.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  const stdout = new Response(child.stdout).text();
  return {
    child,
    stderr: () => stderr,
    done: async () => {
      const code = await child.exited;
      await reading;
      return { code, stdout: await stdout, stderr };
    },
  };
}

describe.each([
  ["set", true],
  ["unset", false],
])("a -p killed with SIGKILL (TMUX_TMPDIR %s)", (_label, tmuxTmpdir) => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox({ tmuxTmpdir });
  });
  afterAll(async () => {
    await sb.umbel(["pool", "drain"]);
    await sb.dispose();
  });
  const ls = async (): Promise<Row[]> => JSON.parse((await sb.umbel(["ls", "--json"])).stdout) as Row[];
  const busy = (prefix: string) =>
    eventually(
      async () => (await ls()).find((w) => w.name.startsWith(prefix) && w.state === "busy" && w.pid),
      20_000,
      `a busy ${prefix} worker`,
    );

  test("its worker's wrapper ends the TUI; ls shows it orphaned, doctor names it, prune removes it", async () => {
    const run = startPrint(sb, ["-p", "fake:hang"]);
    const worker = await busy("p-");
    run.child.kill("SIGKILL");
    await run.done();
    await eventually(() => !isRunning(worker.pid ?? 0), 10_000, "the orphan's TUI to end");
    expect((await ls()).find((w) => w.name === worker.name)).toMatchObject({
      state: "orphaned",
      reason: "owner-gone",
    });
    const doctor = JSON.parse((await sb.umbel(["doctor", "--json"])).stdout) as {
      checks: { id: string; message: string; fix?: string }[];
    };
    expect(doctor.checks.find((c) => c.id === "workers")).toMatchObject({
      message: expect.stringContaining(worker.name),
      fix: expect.stringContaining("umbel prune"),
    });
    const pruned = await sb.umbel(["prune", "--json"]);
    expect(JSON.parse(pruned.stdout)).toMatchObject({ removed: [worker.name] });
    expect(existsSync(join(sb.root, "sessions", worker.name))).toBe(false);
  });

  test("a spare it claimed never outlives it", async () => {
    // -p claims only a spare warmed for its own permission semantics (docs/cli-reference.md, "Permissions").
    expect((await sb.umbel(["pool", "warm", "1", "--non-interactive"])).code).toBe(0);
    const run = startPrint(sb, ["-p", "fake:hang"]);
    const worker = await busy("pool-");
    run.child.kill("SIGKILL");
    await run.done();
    await eventually(() => !isRunning(worker.pid ?? 0), 10_000, "the claimed spare's TUI to end");
    expect((await ls()).find((w) => w.name === worker.name)?.state).toBe("orphaned");
    expect(JSON.parse((await sb.umbel(["prune", "--json"])).stdout).removed).toContain(worker.name);
  });
});

describe("a -p interrupted", () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await createSandbox();
  });
  afterAll(async () => {
    await sb.dispose();
  });
  const ls = async (): Promise<Row[]> => JSON.parse((await sb.umbel(["ls", "--json"])).stdout) as Row[];

  test("by SIGHUP (its terminal closed) removes its worker as SIGINT does", async () => {
    const run = startPrint(sb, ["-p", "fake:hang"]);
    const worker = await eventually(
      async () => (await ls()).find((w) => w.state === "busy" && w.pid),
      20_000,
      "a busy worker",
    );
    run.child.kill("SIGHUP");
    const r = await run.done();
    expect(r.code).toBe(130);
    expect(existsSync(join(sb.root, "sessions", worker.name))).toBe(false);
    await eventually(() => !isRunning(worker.pid ?? 0), 5000, "its TUI to end");
  });

  test("by SIGINT while its prompt is being delivered exits 130 and removes its worker", async () => {
    // The submit hook starts 30 s late, the screen busy: send waits for it until it is interrupted.
    const run = startPrint(sb, ["-p", "--env", "FAKE_CLAUDE_SUBMIT_HOOK_MS=30000", "fake:reply never"], {
      UMBEL_TRACE: "1",
    });
    await eventually(() => run.stderr().includes(": pasted "), 20_000, "the prompt to be pasted");
    run.child.kill("SIGINT");
    const r = await run.done();
    expect(r.stderr).not.toContain("did not take the prompt");
    expect(r.code).toBe(130);
    expect(await ls()).toEqual([]);
  });
});
