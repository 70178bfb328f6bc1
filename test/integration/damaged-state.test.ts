import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { chmod, chown, mkdir, symlink, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { createDeps } from "../../src/adapters/deps.ts";
import { takeLock } from "../../src/adapters/lock-file.ts";
import { inspectStateRoot } from "../../src/adapters/state-root.ts";
import { FileAccessError, StateError, StateRootError } from "../../src/core/errors.ts";
import type { Deps } from "../../src/core/ports.ts";
import type { Meta } from "../../src/core/worker/meta.ts";
import { spawnWorker } from "../../src/operations/spawn/spawn.ts";
import { captureScreen } from "../../src/operations/worker/capture.ts";
import { killWorker, pruneWorkers } from "../../src/operations/worker/kill.ts";
import { streamLogs } from "../../src/operations/worker/logs.ts";
import { readAnswer } from "../../src/operations/worker/read.ts";
import { listWorkers, statusOf } from "../../src/operations/worker/status.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * A session directory umbel cannot read is evidence, never absence: a corrupt meta.json is a broken
 * worker that ls lists beside the others, naming the file, and that prune removes only with no live
 * tmux session of its name (issue 22 item 9; before, it stopped ls and prune for everyone). Only a
 * directory with no meta.json yet (a spawn in progress, or one that died half-way) is not a worker.
 */
let sb: Sandbox;
beforeEach(async () => {
  sb = await createSandbox();
});
afterEach(async () => {
  await sb.dispose();
});

const sessionDir = (name: string) => join(sb.root, "sessions", name);
const ELEVEN_MINUTES_AGO = new Date(Date.now() - 11 * 60_000);

async function makeDir(name: string, meta?: string): Promise<void> {
  await mkdir(join(sessionDir(name), "events"), { recursive: true });
  if (meta !== undefined) await writeFile(join(sessionDir(name), "meta.json"), meta);
  await utimes(sessionDir(name), ELEVEN_MINUTES_AGO, ELEVEN_MINUTES_AGO);
}

/** A killed worker's meta.json: prune removes it without a tmux call. */
function tombstone(name: string): Meta {
  return {
    version: 1,
    name,
    provider: "claude",
    cwd: sb.work,
    bin: "/bin/true",
    sessionId: "00000000-0000-4000-8000-000000000000",
    socket: "unused",
    createdAt: ELEVEN_MINUTES_AGO.toISOString(),
    envNames: [],
    state: "killed",
  };
}

describe("a meta.json umbel cannot parse", () => {
  test.each([
    ["not JSON", '{"version":1,"name":"bad"'],
    ["JSON of the wrong shape", '{"version":1,"name":"bad"}\n'],
    ["not an object", "[]"],
  ])(
    "%s: status is a StateError naming the file and the fix; prune (no tmux session) clears it",
    async (_, text) => {
      await makeDir("a-tomb", JSON.stringify(tombstone("a-tomb")));
      await makeDir("bad", text);
      const path = join(sessionDir("bad"), "meta.json");
      const error = await statusOf(sb.deps(), "bad").catch((e: unknown) => e);
      expect(error).toBeInstanceOf(StateError);
      expect((error as StateError).message).toContain(path);
      expect((error as StateError).message).toContain("umbel kill bad --purge");
      expect((error as StateError).data).toMatchObject({ name: "bad", path });
      expect((error as StateError).exitCode).toBe(1);
      expect(await pruneWorkers(sb.deps())).toMatchObject({
        removed: ["a-tomb", "bad"],
        kept: [],
        broken: [{ name: "bad", file: path, removed: true }],
      });
      expect(existsSync(sessionDir("bad"))).toBe(false);
    },
  );

  test("ls lists it as broken, naming the file, beside the others", async () => {
    await makeDir("a-tomb", JSON.stringify(tombstone("a-tomb")));
    await makeDir("bad", "{oops");
    const rows = await listWorkers(sb.deps());
    expect(rows.map((r) => [r.name, r.state])).toEqual([
      ["a-tomb", "killed"],
      ["bad", "broken"],
    ]);
    expect(rows[1]?.broken).toMatchObject({ file: join(sessionDir("bad"), "meta.json") });
  });
});

describe("a directory with no meta.json", () => {
  test("prune removes it once it is older than 10 minutes, and keeps a young one", async () => {
    await makeDir("orphan");
    await makeDir("tomb", JSON.stringify(tombstone("tomb")));
    await mkdir(sessionDir("young"));
    expect(await pruneWorkers(sb.deps())).toEqual({ removed: ["orphan", "tomb"], kept: ["young"] });
    expect(existsSync(sessionDir("orphan"))).toBe(false);
    expect(existsSync(sessionDir("young"))).toBe(true);
  });

  test("ls skips it (a spawn in progress is not a worker yet)", async () => {
    await mkdir(sessionDir("young"), { recursive: true });
    expect(await listWorkers(sb.deps())).toEqual([]);
  });
});

/** Each verb an operation behind it, as the faces call them. */
const VERBS: Record<string, (deps: Deps, name: string) => Promise<unknown>> = {
  ls: (deps) => listWorkers(deps),
  status: (deps, name) => statusOf(deps, name),
  read: (deps, name) => readAnswer(deps, { name }),
  logs: (deps, name) => streamLogs(deps, { name }, () => undefined),
  capture: (deps, name) => captureScreen(deps, { name }),
  kill: (deps, name) => killWorker(deps, { name }),
  "kill --purge": (deps, name) => killWorker(deps, { name, purge: true }),
  prune: (deps) => pruneWorkers(deps),
};

async function failure(run: Promise<unknown>): Promise<FileAccessError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileAccessError);
  return error as FileAccessError;
}

/**
 * A directory where a state file should be (the probes found 21 exit-70s with EISDIR): the verbs on
 * that worker are a FileAccessError naming the file and what to do, exit 1, and nothing deleted; ls
 * lists it as broken beside the others, and kill --purge or prune (no tmux session) removes it.
 */
describe("a directory where a state file should be", () => {
  const cases: [file: string, verbs: string[]][] = [
    ["meta.json", ["status", "read", "logs", "capture", "kill"]],
    ["events/hooks.jsonl", ["status", "read", "logs"]],
    ["events/exit.json", ["status", "kill"]],
    ["last-screen.txt", ["capture"]],
  ];
  test.each(cases.flatMap(([file, verbs]) => verbs.map((verb) => [file, verb] as const)))(
    "%s, %s: a FileAccessError naming it (exit 1); nothing removed",
    async (file, verb) => {
      await makeDir("ok", JSON.stringify(tombstone("ok")));
      await makeDir("w", file === "meta.json" ? undefined : JSON.stringify(tombstone("w")));
      const path = join(sessionDir("w"), file);
      await mkdir(join(path, "inside"), { recursive: true });
      const error = await failure(VERBS[verb]?.(sb.deps(), "w") ?? Promise.resolve());
      expect(error.exitCode).toBe(1);
      expect(error.message).toContain(path);
      expect(error.message).toContain("remove that directory");
      expect(error.data).toMatchObject({ path, errno: "EISDIR" });
      expect(existsSync(join(path, "inside"))).toBe(true);
      expect(existsSync(sessionDir("ok"))).toBe(true);
    },
  );

  test.each(["meta.json", "events/hooks.jsonl", "events/exit.json"])(
    "%s: ls lists w as broken naming it; kill --purge and prune remove it",
    async (file) => {
      for (const clear of ["kill --purge", "prune"]) {
        await makeDir("w", file === "meta.json" ? undefined : JSON.stringify(tombstone("w")));
        const path = join(sessionDir("w"), file);
        await mkdir(join(path, "inside"), { recursive: true });
        const [row] = await listWorkers(sb.deps());
        expect(row).toMatchObject({ name: "w", state: "broken", broken: { file: path } });
        expect(row?.broken?.reason).toContain("remove that directory");
        await VERBS[clear]?.(sb.deps(), "w");
        expect(existsSync(sessionDir("w"))).toBe(false);
      }
    },
  );

  test("a file where the sessions folder should be: ls names it (ENOTDIR)", async () => {
    await mkdir(sb.root, { recursive: true });
    await writeFile(join(sb.root, "sessions"), "");
    const error = await failure(listWorkers(sb.deps()));
    expect(error.data).toMatchObject({ path: join(sb.root, "sessions"), errno: "ENOTDIR" });
  });

  test("a file where a worker's folder should be: status names it", async () => {
    await mkdir(join(sb.root, "sessions"), { recursive: true });
    await writeFile(sessionDir("w"), "");
    const error = await failure(statusOf(sb.deps(), "w"));
    expect(error.message).toContain(sessionDir("w"));
    expect(error.data).toMatchObject({ errno: "ENOTDIR" });
  });
});

describe("the other files umbel reads", () => {
  test("a user's gemini settings that cannot be read: spawn names it, and leaves no half-made worker", async () => {
    const settings = join(sb.dir, "home", ".gemini", "settings.json");
    await mkdir(settings, { recursive: true });
    const error = await failure(spawnWorker(sb.deps(), { name: "g", provider: "gemini" }));
    expect(error.data).toMatchObject({ path: settings, errno: "EISDIR" });
    expect(existsSync(sessionDir("g"))).toBe(false);
  });

  test("a directory where a lock file should be: the lock names it", async () => {
    const path = join(sb.dir, "send.lock");
    await mkdir(path);
    const error = await failure(takeLock(path, process.pid));
    expect(error.data).toMatchObject({ path, errno: "EISDIR" });
  });

  test("a directory where a workflow run's state.json should be: --resume names it", async () => {
    const dir = join(sb.root, "workflows", "20250101-000000-abcdef");
    await mkdir(join(dir, "state.json"), { recursive: true });
    await writeFile(join(dir, "workflow.yaml"), "workers: {}\n");
    const error = await failure(sb.deps().runs.open("20250101-000000-abcdef"));
    expect(error.data).toMatchObject({ path: join(dir, "state.json"), errno: "EISDIR" });
  });
});

/** Deps on another state root: what `UMBEL_HOME=<root> umbel …` gets. */
function depsAt(root: string): Deps {
  return createDeps({ ...sb.env, UMBEL_HOME: root }, { cwd: sb.work });
}

async function refusal(run: Promise<unknown>): Promise<StateRootError> {
  const error = await run.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(StateRootError);
  expect((error as StateRootError).exitCode).toBe(1);
  return error as StateRootError;
}

/**
 * The state root is checked once per process, before the first state access: a file, a dangling
 * link or another user's folder is refused naming it (the probes got exit 70 with raw errno text,
 * or silence); a folder of the caller's is created or tightened to 0700.
 */
describe("the state root", () => {
  test("a file: every verb is refused, naming it; spawn makes nothing", async () => {
    const root = join(sb.dir, "root-file");
    await writeFile(root, "not a folder\n");
    for (const verb of ["ls", "status", "prune"]) {
      const error = await refusal(VERBS[verb]?.(depsAt(root), "w") ?? Promise.resolve());
      expect(error.message).toContain(`the state root ${root} is not a directory`);
      expect(error.data).toMatchObject({ path: root, problem: "not-a-directory" });
    }
    await refusal(spawnWorker(depsAt(root), { name: "w", provider: "claude" }));
  });

  test("a dangling symbolic link: refused, and its target is not created", async () => {
    const root = join(sb.dir, "root-link");
    const target = join(sb.dir, "gone", "state");
    await symlink(target, root);
    const error = await refusal(listWorkers(depsAt(root)));
    expect(error.message).toContain(`symbolic link to ${target}, which does not exist`);
    await refusal(spawnWorker(depsAt(root), { name: "w", provider: "claude" }));
    expect(existsSync(join(sb.dir, "gone"))).toBe(false);
  });

  test("a link to a folder of the caller's is used", async () => {
    const real = join(sb.dir, "real-state");
    await mkdir(real, { mode: 0o700 });
    const root = join(sb.dir, "root-link");
    await symlink(real, root);
    expect(await listWorkers(depsAt(root))).toEqual([]);
  });

  test("another user's folder is refused before anything is read or written", async () => {
    const mine = process.getuid?.() ?? 0;
    // Root can make a folder another user owns; anyone else finds one in /.
    const root = mine === 0 ? join(sb.dir, "theirs") : "/";
    if (mine === 0) {
      await mkdir(join(root, "sessions", "w"), { recursive: true, mode: 0o700 });
      await writeFile(join(root, "sessions", "w", "meta.json"), JSON.stringify(tombstone("w")));
      await chown(root, 65534, 65534);
    }
    for (const verb of ["ls", "status", "prune", "kill --purge"]) {
      const error = await refusal(VERBS[verb]?.(depsAt(root), "w") ?? Promise.resolve());
      expect(error.message).toContain(`belongs to uid ${statSync(root).uid}, not to you (uid ${mine})`);
      expect(error.data).toMatchObject({ path: root, problem: "foreign-owner" });
    }
    if (mine === 0) expect(existsSync(join(root, "sessions", "w", "meta.json"))).toBe(true);
  });

  test("a missing root is created 0700; a loose one is tightened to 0700", async () => {
    const fresh = join(sb.dir, "fresh", "state");
    expect(await listWorkers(depsAt(fresh))).toEqual([]);
    expect(statSync(fresh).mode & 0o7777).toBe(0o700);
    const loose = join(sb.dir, "loose");
    await mkdir(loose);
    await chmod(loose, 0o755);
    expect(await listWorkers(depsAt(loose))).toEqual([]);
    expect(statSync(loose).mode & 0o7777).toBe(0o700);
  });

  test("inspectStateRoot (for doctor) tells what the check would do, and does nothing", async () => {
    const uid = process.getuid?.() ?? null;
    const loose = join(sb.dir, "loose");
    await mkdir(loose);
    await chmod(loose, 0o755);
    expect(await inspectStateRoot(loose, uid)).toEqual({ action: "tighten", mode: 0o700 });
    expect(statSync(loose).mode & 0o7777).toBe(0o755);
    expect(await inspectStateRoot(join(sb.dir, "none"), uid)).toEqual({ action: "create" });
    expect(existsSync(join(sb.dir, "none"))).toBe(false);
    await writeFile(join(sb.dir, "file"), "");
    expect(await inspectStateRoot(join(sb.dir, "file"), uid)).toMatchObject({ action: "refuse" });
  });
});
