import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** The guarantees a user relies on without seeing them: secrets, isolation, atomic names. */

const sandboxes: Sandbox[] = [];
async function sandbox(env: Record<string, string> = {}) {
  const sb = await createSandbox({ env });
  sandboxes.push(sb);
  return sb;
}
afterAll(async () => {
  await Promise.all(sandboxes.map((sb) => sb.dispose()));
});

function allFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    return statSync(path).isDirectory() ? allFiles(path) : [path];
  });
}

/** Every process's argv, as `ps` shows it. */
function psArgs(): string {
  return Bun.spawnSync(["ps", "-eo", "args="]).stdout.toString();
}

describe("a secret passed to a worker", () => {
  test("reaches the worker but no argv, no tmux environment and no file under the state root", async () => {
    const secret = `s3cr3t-${crypto.randomUUID()}`;
    const sb = await sandbox({ UMBEL_PROOF_SECRET: secret });
    let sampling = true;
    const seen: string[] = [];
    const sampler = (async () => {
      while (sampling) {
        const args = psArgs();
        if (args.includes(secret)) seen.push(args);
        await Bun.sleep(5);
      }
    })();
    const spawned = await sb.umbel([
      "spawn",
      "sec",
      "--env",
      "UMBEL_PROOF_SECRET",
      "--env",
      `LITERAL_SECRET=${secret}-lit`,
    ]);
    const sent = await sb.umbel(["send", "sec", "fake:env UMBEL_PROOF_SECRET"]);
    await sb.umbel(["wait", "sec"]);
    sampling = false;
    await sampler;
    expect(spawned.code).toBe(0);
    expect(sent.code).toBe(0);
    // The --env NAME=VALUE form is on umbel's own argv by the caller's choice; the NAME form never is.
    expect(
      seen.filter((args) =>
        args.split("\n").some((l) => l.includes(secret) && !l.includes("LITERAL_SECRET=")),
      ),
    ).toEqual([]);

    expect((await sb.umbel(["read", "sec"])).stdout).toBe(`ENV UMBEL_PROOF_SECRET=${secret}\n`);
    await sb.umbel(["send", "sec", "fake:env LITERAL_SECRET"]);
    await sb.umbel(["wait", "sec"]);
    expect((await sb.umbel(["read", "sec"])).stdout).toBe(`ENV LITERAL_SECRET=${secret}-lit\n`);

    const tmux = createTmux({ socket: deriveSocket(sb.root, undefined), hostEnv: sb.env });
    expect(await tmux.showEnvironment()).not.toContain(secret);
    expect(await tmux.showEnvironment("sec")).not.toContain(secret);
    // The reply itself is in the transcript (outside the state root); nothing under the root has it.
    const leaks = allFiles(sb.root).filter(
      (f) => readFileSync(f, "utf8").includes(secret) && !f.endsWith("hooks.jsonl"),
    );
    expect(leaks).toEqual([]);
    // hooks.jsonl holds the Stop payload, which quotes the model's answer: the only place it may appear.
    const hookLines = readFileSync(join(sb.root, "sessions", "sec", "events", "hooks.jsonl"), "utf8")
      .split("\n")
      .filter((l) => l.includes(secret));
    expect(hookLines.every((l) => l.includes('"hook_event_name":"Stop"'))).toBe(true);
  });
});

describe("isolation", () => {
  test("tmux kill-server on the default socket leaves every worker alive", async () => {
    // A private TMUX_TMPDIR holds both the "default" socket and umbel's, like a user's /tmp/tmux-UID.
    const socketDir = await mkdtemp(join(tmpdir(), "umbel-sock-"));
    const sb = await sandbox({ TMUX_TMPDIR: socketDir });
    const defaultServer = createTmux({ socket: "default", hostEnv: sb.env });
    await defaultServer.newSession({
      name: "users-own",
      cwd: sb.work,
      width: 80,
      height: 24,
      command: ["sleep", "60"],
      bufferName: "b",
      bufferContent: "",
    });
    expect(await defaultServer.hasSession("users-own")).toBe(true);
    expect((await sb.umbel(["spawn", "survivor"])).code).toBe(0);
    await defaultServer.killServer();
    expect(await defaultServer.hasSession("users-own")).toBe(false);
    expect((await sb.umbel(["status", "survivor", "--json"])).stdout).toContain('"state":"idle"');
    const sent = await sb.umbel(["send", "survivor", "still here?"]);
    expect(sent.code).toBe(0);
  });

  test("two state roots never see each other's workers, even with the same name", async () => {
    const [a, b] = [await sandbox(), await sandbox()];
    expect((await a.umbel(["spawn", "same"])).code).toBe(0);
    expect((await b.umbel(["spawn", "same"])).code).toBe(0);
    expect((await b.umbel(["spawn", "only-b"])).code).toBe(0);
    const lsA = JSON.parse((await a.umbel(["ls", "--json"])).stdout) as { name: string }[];
    const lsB = JSON.parse((await b.umbel(["ls", "--json"])).stdout) as { name: string }[];
    expect(lsA.map((w) => w.name)).toEqual(["same"]);
    expect(lsB.map((w) => w.name)).toEqual(["only-b", "same"]);
    await a.umbel(["kill", "same"]);
    expect((await b.umbel(["status", "same", "--json"])).stdout).toContain('"state":"idle"');
  });
});

describe("concurrent spawns", () => {
  test("20 distinct names all succeed; 2 of one name give exactly one worker and one clear error", async () => {
    const sb = await sandbox();
    const names = Array.from({ length: 20 }, (_, i) => `c${i}`);
    const results = await Promise.all([
      ...names.map((n) => sb.umbel(["spawn", n])),
      sb.umbel(["spawn", "twin"]),
      sb.umbel(["spawn", "twin"]),
    ]);
    const distinct = results.slice(0, 20);
    expect(distinct.map((r) => r.stderr).filter((e) => e !== "")).toEqual([]);
    expect(distinct.every((r) => r.code === 0)).toBe(true);
    const twins = results
      .slice(20)
      .map((r) => r.code)
      .sort();
    expect(twins).toEqual([0, 4]);
    expect(results.slice(20).find((r) => r.code === 4)?.stderr).toContain("already exists");
    const ls = JSON.parse((await sb.umbel(["ls", "--json"])).stdout) as { name: string; state: string }[];
    expect(ls.length).toBe(21);
    expect(ls.every((w) => w.state === "idle")).toBe(true);
    const sessions = await createTmux({
      socket: deriveSocket(sb.root, undefined),
      hostEnv: sb.env,
    }).listSessions();
    expect(sessions.filter((s) => s === "twin")).toEqual(["twin"]);
  }, 120_000);
});
