import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readLock, reapMarker, takeLock, UNREADABLE_LOCK_MS } from "../../src/adapters/lock-file.ts";
import { findLocks } from "../../src/adapters/lock-scan.ts";
import { processStart } from "../../src/adapters/process-start.ts";
import { createStore } from "../../src/adapters/state.ts";
import { createRuns } from "../../src/adapters/workflow/store.ts";
import { FileAccessError } from "../../src/core/errors.ts";
import { RunBusyError } from "../../src/core/workflow/errors.ts";
import { canMountTinyDisk, mountTinyDisk } from "../helpers/full-disk.ts";
import { eventually } from "../helpers/sandbox.ts";
import { seeded } from "../helpers/seeded.ts";

// The cross-process probe starts 5 bun processes a round.
setDefaultTimeout(30_000);

/**
 * Issue 22 items 5 and 12: the lock files (send, guard, claim, boot slots, workflow runs). A stale
 * lock (its holder gone) is taken over by exactly one taker, never by several at once (five
 * concurrent sends on a dead holder's send.lock: 2-4 exited 0 with one baseline); a lock is never
 * empty (a full disk, or a kill between create and write, left one that wedged the worker for
 * good); and one with no readable holder is taken over once older than UNREADABLE_LOCK_MS.
 */

/** No process has this pid (Linux's pid_max is at most 2^22). */
const NO_PID = 4_194_305;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-lock-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await rm(join(tmpdir(), `umbel-runs-${process.pid}`), { recursive: true, force: true });
});

/** The stale locks a taker may find: each format umbel (and launch.sh) ever wrote, and damaged ones. */
const STALE: readonly { what: string; text: string; old?: true }[] = [
  { what: "a dead holder's", text: JSON.stringify({ pid: NO_PID, start: "1", nonce: "a" }) },
  { what: "an earlier umbel's (no nonce)", text: JSON.stringify({ pid: NO_PID, start: "1" }) },
  { what: "launch.sh's (start null)", text: `{"pid":${NO_PID},"start":null}` },
  { what: "a reused pid's", text: JSON.stringify({ pid: process.pid, start: "not-mine" }) },
  { what: "an old empty", text: "", old: true },
  { what: "an old half-written", text: '{"pid":12', old: true },
  { what: "an old holder-less", text: "{}", old: true },
];

async function plant(path: string, stale: { text: string; old?: true }): Promise<void> {
  await writeFile(path, stale.text, { mode: 0o600 });
  if (stale.old) {
    const then = (Date.now() - UNREADABLE_LOCK_MS - 5000) / 1000;
    await utimes(path, then, then);
  }
}

const tick = () => new Promise<void>((resolve) => setImmediate(resolve));

describe("a stale lock is taken over by one taker at a time", () => {
  test("in one process: 5 takers at once on each kind of stale lock, 140 rounds (seeded)", async () => {
    const random = seeded(22_5);
    const path = join(dir, "race.lock");
    for (let round = 0; round < 140; round++) {
      const stale = STALE[round % STALE.length] ?? STALE[0];
      if (!stale) throw new Error("no stale lock");
      await plant(path, stale);
      let holders = 0;
      let most = 0;
      let taken = 0;
      await Promise.all(
        Array.from({ length: 5 }, async () => {
          // Each starts a few ticks apart, so the rounds cover the interleavings of a takeover.
          for (let i = random.int(4); i > 0; i--) await tick();
          for (let tries = 0; tries < 10_000; tries++) {
            const lock = await takeLock(path, process.pid);
            if (lock) {
              holders++;
              most = Math.max(most, holders);
              for (let i = random.int(3) + 1; i > 0; i--) await tick();
              holders--;
              taken++;
              await lock.release();
              return;
            }
            await tick();
          }
        }),
      );
      expect({ round, what: stale.what, most, taken }).toEqual({
        round,
        what: stale.what,
        most: 1,
        taken: 5,
      });
      expect(existsSync(path)).toBe(false);
    }
    // Nothing of the takeovers is left beside the lock.
    expect(readdirSync(dir).filter((f) => f.startsWith("race.lock"))).toEqual([]);
  });

  test("across processes: 5 racers a round on each kind of stale lock, 7 rounds", async () => {
    const racer = join(import.meta.dir, "..", "fixtures", "lock-racer.ts");
    for (let round = 0; round < STALE.length; round++) {
      const where = join(dir, `x${round}`);
      await mkdir(where);
      const path = join(where, "send.lock");
      const log = join(where, "log");
      const go = join(where, "go");
      await plant(path, STALE[round] ?? { text: "", old: true });
      const ready = Array.from({ length: 5 }, (_, i) => join(where, `ready-${i}`));
      const children = ready.map((r) =>
        Bun.spawn([process.execPath, racer, path, log, r, go], { stdout: "ignore", stderr: "inherit" }),
      );
      await eventually(() => ready.every((r) => existsSync(r)), 20_000, "the racers to start");
      await writeFile(go, "");
      const codes = await Promise.all(children.map((c) => c.exited));
      expect(codes).toEqual([0, 0, 0, 0, 0]);
      const lines = readFileSync(log, "utf8").trim().split("\n");
      // in/out pairs of one pid each, never two holders at once.
      expect(lines).toHaveLength(10);
      for (let i = 0; i < lines.length; i += 2) {
        const pid = lines[i]?.split(" ")[1];
        expect([lines[i], lines[i + 1]]).toEqual([`in ${pid}`, `out ${pid}`]);
      }
      expect(existsSync(path)).toBe(false);
      rmSync(where, { recursive: true, force: true });
    }
  });
});

describe("a takeover's own marker", () => {
  test("is named for the lock file's inode, as hooks/launch.sh names it from `ls -di` (both take the same one)", async () => {
    const path = join(dir, "named lock.lock");
    await plant(path, STALE[0] ?? { text: "" });
    const seen = await readLock(path);
    if (!seen) throw new Error("no lock");
    const ls = Bun.spawnSync(["ls", "-di", path]).stdout.toString();
    expect(reapMarker(path, seen)).toBe(`${path}.reap-${ls.slice(0, ls.indexOf(" "))}`);
    await rm(path);
  });

  test("doctor's scan lists the markers beside their lock, named either way (an earlier umbel's 16 hex digits)", async () => {
    const root = join(dir, "scanned");
    const session = join(root, "sessions", "w");
    await mkdir(session, { recursive: true });
    const lock = join(session, "claim.lock");
    await plant(lock, STALE[0] ?? { text: "" });
    const seen = await readLock(lock);
    if (!seen) throw new Error("no lock");
    const dead = JSON.stringify({ pid: NO_PID, start: "2", nonce: "reaper" });
    await writeFile(reapMarker(lock, seen), dead);
    await writeFile(`${lock}.reap-28975b6202157da7`, dead);
    const found = (await findLocks(root))
      .map((l) => ({ path: l.path, held: l.held }))
      .sort((a, b) => (a.path < b.path ? -1 : 1));
    expect(found).toEqual(
      [lock, reapMarker(lock, seen), `${lock}.reap-28975b6202157da7`]
        .sort()
        .map((path) => ({ path, held: false })),
    );
  });

  test("one left by a reaper that died is taken over too, then the stale lock", async () => {
    const path = join(dir, "marked.lock");
    await plant(path, STALE[0] ?? { text: "" });
    const seen = await readLock(path);
    if (!seen) throw new Error("no lock");
    const marker = reapMarker(path, seen);
    await writeFile(marker, JSON.stringify({ pid: NO_PID, start: "2", nonce: "reaper" }));
    const lock = await takeLock(path, process.pid);
    expect(lock).not.toBeNull();
    await lock?.release();
    expect(readdirSync(dir).filter((f) => f.startsWith("marked.lock"))).toEqual([]);
  });

  test("one a live reaper holds: the lock is left to it (null), untouched", async () => {
    const path = join(dir, "reaping.lock");
    await plant(path, STALE[0] ?? { text: "" });
    const seen = await readLock(path);
    if (!seen) throw new Error("no lock");
    const reaper = await takeLock(reapMarker(path, seen), process.pid);
    expect(await takeLock(path, process.pid)).toBeNull();
    expect(await readFile(path, "utf8")).toBe(seen.text);
    await reaper?.release();
    const lock = await takeLock(path, process.pid);
    expect(lock).not.toBeNull();
    await lock?.release();
  });
});

describe("a lock with no readable holder", () => {
  test.each(["", "{", "{}", '{"pid":"x"}', "\u0000\u0000"])(
    "%p: held while fresh (it may be being written), taken over once older than the bound",
    async (text) => {
      const path = join(dir, "unreadable.lock");
      await writeFile(path, text);
      expect(await takeLock(path, process.pid)).toBeNull();
      const then = (Date.now() - UNREADABLE_LOCK_MS - 1000) / 1000;
      await utimes(path, then, then);
      const lock = await takeLock(path, process.pid);
      expect(lock).not.toBeNull();
      expect(JSON.parse(await readFile(path, "utf8"))).toMatchObject({ pid: process.pid });
      await lock?.release();
      expect(existsSync(path)).toBe(false);
    },
  );

  test("one dated far in the future (the clock was set back) is taken over too", async () => {
    const path = join(dir, "future.lock");
    await writeFile(path, "");
    const later = (Date.now() + UNREADABLE_LOCK_MS + 60_000) / 1000;
    await utimes(path, later, later);
    const lock = await takeLock(path, process.pid);
    expect(lock).not.toBeNull();
    await lock?.release();
  });
});

describe("a lock is whole from the moment it exists", () => {
  test("a reader never sees an empty or partial lock while takers come and go (200 takes)", async () => {
    const path = join(dir, "whole.lock");
    let done = false;
    const seen: string[] = [];
    const reader = (async () => {
      while (!done) {
        const text = await readFile(path, "utf8").catch(() => null);
        if (text !== null) seen.push(text);
        await tick();
      }
    })();
    for (let i = 0; i < 200; i++) {
      const lock = await takeLock(path, process.pid);
      await tick();
      await lock?.release();
    }
    done = true;
    await reader;
    expect(seen.length).toBeGreaterThan(0);
    for (const text of seen) expect(JSON.parse(text)).toMatchObject({ pid: process.pid });
  });

  test("a live holder's lock is not taken; its release removes only its own", async () => {
    const path = join(dir, "own.lock");
    const lock = await takeLock(path, process.pid);
    expect(lock).not.toBeNull();
    expect(await takeLock(path, process.pid)).toBeNull();
    const other = JSON.stringify({
      pid: process.pid,
      start: await processStart(process.pid),
      nonce: "other",
    });
    await writeFile(path, other);
    await lock?.release();
    expect(await readFile(path, "utf8")).toBe(other);
    await rm(path);
  });

  test.skipIf(!canMountTinyDisk())(
    "on a full disk: a FileAccessError (ENOSPC) naming the lock, and no file left behind",
    async () => {
      const disk = await mountTinyDisk(64);
      if (!disk) throw new Error("the tmpfs went away");
      try {
        disk.fill();
        const path = join(disk.dir, "send.lock");
        const error = await takeLock(path, process.pid).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toBeInstanceOf(FileAccessError);
        expect((error as FileAccessError).data).toMatchObject({ errno: "ENOSPC" });
        expect((error as FileAccessError).message).toContain(path);
        expect(readdirSync(disk.dir)).toEqual(["filler"]);
      } finally {
        await disk.dispose();
      }
    },
  );
});

describe("a workflow run's lock (run --resume)", () => {
  const runs = createRuns(join(tmpdir(), `umbel-runs-${process.pid}`), async () => undefined);
  let n = 0;
  const made = () => runs.create(`20250101-000000-${String(++n).padStart(6, "0")}`, "workers: {}\n");

  test.each([
    ["an earlier umbel's (the bare pid)", `${NO_PID}\n`],
    ["a dead holder's", JSON.stringify({ pid: NO_PID, start: "1", nonce: "n" })],
  ])(
    "%s stale lock is taken over; while it is held, another lock is refused with its pid",
    async (_what, text) => {
      const store = await made();
      await writeFile(join(store.dir, "lock"), text);
      await store.lock();
      const busy = await store.lock().then(
        () => null,
        (e: unknown) => e,
      );
      expect(busy).toBeInstanceOf(RunBusyError);
      expect((busy as RunBusyError).data).toMatchObject({ pid: process.pid });
      await store.unlock();
      expect(existsSync(join(store.dir, "lock"))).toBe(false);
    },
  );

  test("5 resumes at once on a dead run's lock, 20 rounds: exactly one runs, the others are refused", async () => {
    for (let round = 0; round < 20; round++) {
      const store = await made();
      await writeFile(join(store.dir, "lock"), `${NO_PID}\n`);
      const results = await Promise.allSettled(Array.from({ length: 5 }, () => store.lock()));
      expect({ round, won: results.filter((r) => r.status === "fulfilled").length }).toEqual({
        round,
        won: 1,
      });
      for (const r of results) if (r.status === "rejected") expect(r.reason).toBeInstanceOf(RunBusyError);
      await store.unlock();
    }
  });
});

describe("the warm pool's key (pool.key)", () => {
  test("5 stores of a new root at once agree on one key, made whole", async () => {
    const root = join(dir, "pool-a");
    const hashes = await Promise.all(
      Array.from({ length: 5 }, () => createStore(root, async () => undefined).keyedHash("x")),
    );
    expect(new Set(hashes).size).toBe(1);
    expect(await readFile(join(root, "pool.key"), "utf8")).toMatch(/^[0-9a-f]{64}$/);
  });

  test("an empty one (a full disk left it between create and write) is replaced once older than the bound", async () => {
    const root = join(dir, "pool-b");
    await mkdir(root);
    await plant(join(root, "pool.key"), { text: "", old: true });
    await createStore(root, async () => undefined).keyedHash("x");
    expect(await readFile(join(root, "pool.key"), "utf8")).toMatch(/^[0-9a-f]{64}$/);
  });
});
