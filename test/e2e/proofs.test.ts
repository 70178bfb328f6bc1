import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
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
    // Two claude workers boot at a time (UMBEL_MAX_STARTING's default) and the wait for a slot counts
    // in the start timeout: 11 waves beside two other test files on 2 cores took over 60 s.
    const spawn = (name: string) => sb.umbel(["spawn", name, "--start-timeout", "200s"]);
    const results = await Promise.all([...names.map(spawn), spawn("twin"), spawn("twin")]);
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
  }, 240_000);
});

/** Every entry under `dir` (not following links), as umbel left it. */
function walk(dir: string): { path: string; kind: "dir" | "file" | "link" | "other"; mode: number }[] {
  return readdirSync(dir).flatMap((entry) => {
    const path = join(dir, entry);
    const info = lstatSync(path);
    const mode = info.mode & 0o7777;
    if (info.isSymbolicLink()) return [{ path, kind: "link" as const, mode }];
    if (info.isDirectory()) return [{ path, kind: "dir" as const, mode }, ...walk(path)];
    return [{ path, kind: info.isFile() ? ("file" as const) : ("other" as const), mode }];
  });
}

/**
 * What the CLIs write inside the home umbel gives them (as the real ones do, with the caller's
 * umask: codex's rollouts and locks, gemini's chats): not umbel's files, and private all the same,
 * inside a 0700 home under a 0700 root. Everything else under the root is umbel's.
 */
const CLI_OWN = [
  /^codex-home\/(sessions|tui-thread-reference-capabilities|thread-writer-locks)(\/|$)/,
  /^sessions\/[^/]+\/gemini\/\.gemini\/tmp(\/|$)/,
];

describe("file modes under the state root", () => {
  test("after a worker's life, -p and a workflow run on claude, codex and gemini: files 0600, dirs 0700", async () => {
    // umask 022 (the usual one) makes a file created without an explicit mode 0644: the probe's
    // finding was events/hooks.jsonl at 0644, quoting the model's answers.
    const umask = process.umask(0o022);
    try {
      const sb = await sandbox({ GEMINI_API_KEY: "fake-key" });
      // The user's credentials, which a provider home links to (the links are the user's files).
      mkdirSync(join(sb.dir, "home", ".gemini"), { mode: 0o700 });
      writeFileSync(join(sb.dir, "home", ".gemini", "oauth_creds.json"), "{}\n", { mode: 0o600 });
      mkdirSync(join(sb.dir, "home", ".codex"), { mode: 0o700 });
      writeFileSync(join(sb.dir, "home", ".codex", "auth.json"), "{}\n", { mode: 0o600 });
      const workflow = join(sb.work, "flow.yaml");
      for (const provider of ["claude", "codex", "gemini"]) {
        const name = `life-${provider}`;
        expect((await sb.umbel(["spawn", name, "--provider", provider])).stderr).toBe("");
        expect((await sb.umbel(["send", name, "a secret: hunter2"])).code).toBe(0);
        expect((await sb.umbel(["wait", name])).code).toBe(0);
        expect((await sb.umbel(["kill", name])).code).toBe(0);
        // A CLI that exits leaves launch.sh's exit record.
        expect((await sb.umbel(["spawn", `dies-${provider}`, "--provider", provider])).code).toBe(0);
        expect((await sb.umbel(["send", `dies-${provider}`, "fake:die 3"])).code).toBe(0);
        expect((await sb.umbel(["wait", `dies-${provider}`])).code).toBe(125);
        const printed = await sb.umbel(["-p", "--provider", provider, "hello"]);
        expect(printed.stderr).toBe("");
        writeFileSync(
          workflow,
          `workers: { w: { provider: ${provider} } }\nsteps:\n  - { id: s, run: w, prompt: hi }\n`,
        );
        const ran = await sb.umbel(["run", workflow]);
        expect(ran.stderr).toContain("done after");
        expect(ran.code).toBe(0);
      }

      const entries = walk(sb.root).map((e) => ({ ...e, path: relative(sb.root, e.path) }));
      const own = entries.filter((e) => !CLI_OWN.some((re) => re.test(e.path)));
      const loose = own
        .filter((e) => e.kind !== "link")
        .filter((e) => e.mode !== (e.kind === "dir" ? 0o700 : 0o600))
        .map((e) => `${e.path} ${e.kind} ${e.mode.toString(8)}`);
      expect(loose).toEqual([]);
      expect(statSync(sb.root).mode & 0o7777).toBe(0o700);
      // What was walked: each provider's events log, exit record, and the run's state.
      for (const path of [
        "sessions/life-claude/events/hooks.jsonl",
        "sessions/life-codex/last-screen.txt",
        "sessions/dies-gemini/events/exit.json",
        "codex-home/config.toml",
        "bin",
      ])
        expect(own.map((e) => e.path)).toContain(path);
      expect(own.some((e) => /^workflows\/[^/]+\/state\.json$/.test(e.path))).toBe(true);
      // Links are the user's credentials (umbel never writes through them), so they are not checked.
      const links = entries.filter((e) => e.kind === "link");
      expect(links.length).toBeGreaterThan(0);
      for (const link of links) {
        const target = resolve(join(sb.root, link.path, ".."), readlinkSync(join(sb.root, link.path)));
        expect(target.startsWith(join(sb.dir, "home"))).toBe(true);
      }
      // The CLIs' own files sit in homes no one else can enter. They keep the caller's umask (launch.sh
      // sets 077 only around its exit record): the files a CLI makes in the project are the user's.
      const cliOwn = entries.filter((e) => CLI_OWN.some((re) => re.test(e.path)));
      expect(cliOwn.some((e) => e.kind === "file" && e.mode === 0o644)).toBe(true);
      for (const home of ["codex-home", "sessions/life-gemini/gemini"])
        expect(statSync(join(sb.root, home)).mode & 0o777).toBe(0o700);
    } finally {
      process.umask(umask);
    }
  }, 180_000);
});
