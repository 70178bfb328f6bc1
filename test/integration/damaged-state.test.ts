import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { mkdir, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { StateError } from "../../src/core/errors.ts";
import type { Meta } from "../../src/core/meta.ts";
import { pruneWorkers } from "../../src/operations/kill.ts";
import { listWorkers } from "../../src/operations/status.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

/**
 * A session directory umbel cannot read is evidence, never absence: a corrupt meta.json stops prune
 * (nothing is deleted) and ls, naming the file. Only a directory with no meta.json yet (a spawn in
 * progress, or one that died half-way) is not a worker.
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
  ])("%s: prune is a StateError naming the file, and deletes nothing", async (_, text) => {
    await makeDir("a-tomb", JSON.stringify(tombstone("a-tomb")));
    await makeDir("bad", text);
    const error = await pruneWorkers(sb.deps()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateError);
    const path = join(sessionDir("bad"), "meta.json");
    expect((error as StateError).message).toContain(path);
    expect((error as StateError).data).toMatchObject({ name: "bad", path });
    expect((error as StateError).exitCode).toBe(1);
    expect(existsSync(path)).toBe(true);
    expect(existsSync(sessionDir("a-tomb"))).toBe(true);
  });

  test("ls is a StateError naming the file", async () => {
    await makeDir("bad", "{oops");
    const error = await listWorkers(sb.deps()).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StateError);
    expect((error as StateError).data).toMatchObject({ path: join(sessionDir("bad"), "meta.json") });
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
