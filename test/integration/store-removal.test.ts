import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdtemp, readdir, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGuardStore } from "../../src/adapters/guard/store.ts";
import { createStore } from "../../src/adapters/state.ts";
import { WorkerNotFoundError } from "../../src/core/errors.ts";
import type { Meta } from "../../src/core/worker/meta.ts";

setDefaultTimeout(30_000);

/**
 * A removed worker stays removed. The MCP suite saw a pruned worker come back in the next `ls`: the
 * SessionEnd hook of the killed CLI ran late (under load) while prune removed the directory, and
 * Bun 1.4.5's rm({recursive, force}) stops at an entry that vanished mid-walk (the hook's temp file)
 * and reports success with the rest of the tree, meta.json with it, still on disk (oven-sh/bun#35800).
 * And a late write of a removed worker's files (a kill that lost the race with prune, a hook, the
 * StructuredOutput server) must fail, never make its directory again.
 */
let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), "umbel-removal-"));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const noCheck = async () => undefined;

/** Temp files that come and go in a directory as fast as they can (many hooks at once), never stopping. */
const CHURN = `
const { writeFileSync, unlinkSync } = require("node:fs");
const dir = process.argv[1];
for (;;) for (let i = 0; i < 16; i++) {
  const tmp = dir + "/hooks.jsonl." + i + ".tmp";
  try { writeFileSync(tmp, "{}"); unlinkSync(tmp); } catch {}
}`;

function meta(name: string): Meta {
  return {
    name,
    provider: "claude",
    cwd: root,
    createdAt: "2025-01-01T00:00:00.000Z",
    state: "ready",
    sessionId: "s",
    envNames: [],
  } as unknown as Meta;
}

describe("a removed worker stays removed", () => {
  test("remove takes the whole directory while a hook's temp file comes and goes beside it", async () => {
    const store = createStore(join(root, "a"), noCheck);
    const events = store.paths("w").events;
    // hooks/hook.sh's pattern: a temp file in events/, appended to the log, removed. It keeps going
    // (its writes fail while the directory is gone) until the test ends.
    const hook = Bun.spawn([process.execPath, "-e", CHURN, events], { stdout: "ignore", stderr: "ignore" });
    const left: string[] = [];
    try {
      for (let round = 0; round < 60; round++) {
        await store.claim("w");
        await store.writeMeta(meta("w"));
        // A walk long enough for the hook to come and go inside it.
        await Promise.all(Array.from({ length: 60 }, (_, i) => writeFile(join(events, `f${i}`), "x")));
        await store.remove("w");
        if (existsSync(store.paths("w").dir)) {
          left.push(`round ${round}: ${(await readdir(store.paths("w").dir)).join(" ")}`);
          await rename(store.paths("w").dir, join(root, `left-${round}`)); // out of the way, for afterAll
        }
      }
    } finally {
      hook.kill();
      await hook.exited;
    }
    expect(left).toEqual([]);
    expect(await store.listNames()).toEqual([]);
    // Nothing of it is left under another name either.
    expect(await readdir(join(root, "a", "sessions"))).toEqual([]);
  });

  test("a late write fails as not-found and never makes the directory again", async () => {
    const store = createStore(join(root, "b"), noCheck);
    const guards = createGuardStore(store);
    await store.claim("w");
    await store.writeMeta(meta("w"));
    await store.remove("w");
    const late: [string, () => Promise<unknown>][] = [
      ["writeMeta", () => store.writeMeta({ ...meta("w"), state: "killed" })],
      ["writeLastScreen", () => store.writeLastScreen("w", "screen")],
      ["writeWorkerFile", () => store.writeWorkerFile("w", "queue.json", "{}")],
      ["guards.write", () => guards.write("w", { baseline: 1 } as never)],
      ["guards.writeTurnSchema", () => guards.writeTurnSchema("w", { turn: 1 } as never)],
      ["guards.writeFile", () => guards.writeFile("w", "server-ready", "1\n")],
    ];
    for (const [what, write] of late) {
      const error = await write().then(
        () => null,
        (e: unknown) => e,
      );
      expect({ what, error: error?.constructor.name }).toEqual({ what, error: WorkerNotFoundError.name });
      expect({ what, data: (error as WorkerNotFoundError).data }).toMatchObject({
        what,
        data: { name: "w" },
      });
      expect({ what, exists: existsSync(store.paths("w").dir) }).toEqual({ what, exists: false });
    }
    expect(await store.listNames()).toEqual([]);
  });
});
