import { link, open, readFile, rm, writeFile } from "node:fs/promises";
import type { Lock } from "../core/ports.ts";
import { asFileFault, isExists, isNotFound } from "./files.ts";
import { processStart } from "./process-start.ts";

/**
 * A lock file with no readable holder (empty, not JSON, no pid) is taken over once its mtime is this
 * far from now. umbel's own locks are never empty (linked whole, below); an empty one is an older
 * umbel's or a script's, left between create and write by a full disk or a kill, which wedged the
 * worker (every send exit 4) or the root (every spawn) for good. A writer that is alive fills its
 * lock within microseconds of creating it, so 5 s is far past any live one.
 */
export const UNREADABLE_LOCK_MS = 5_000;

/** A takeover of a stale marker left by a reaper that died is itself a takeover: this deep at most. */
const MAX_REAP_DEPTH = 3;

/**
 * An exclusive lock between processes: a file holding its holder's pid, start and a nonce. It is
 * written whole to a temp file, then linked to the lock's name (link(2) fails if the name exists),
 * so it never exists empty or half-written, and of two takers exactly one gets it. A holder that is
 * gone (its pid ended, or now names another process) leaves a stale lock, which the next taker
 * removes — only that one file, and only one taker at a time (see `reap`). null: a live process
 * holds it (or another taker is removing a stale one: look again).
 */
export async function takeLock(path: string, pid: number): Promise<Lock | null> {
  return take(path, pid, 0);
}

async function take(path: string, pid: number, depth: number): Promise<Lock | null> {
  const mine = JSON.stringify({ pid, start: await processStart(pid), nonce: crypto.randomUUID() });
  // A round is one link, then one look at what is there; a takeover is followed by one more link.
  for (let round = 0; round < 3; round++) {
    if (await linkWhole(path, mine)) return ownLock(path, mine);
    const seen = await readLock(path);
    if (seen === null) continue; // released meanwhile
    if (await isHeld(seen)) return null;
    if (depth >= MAX_REAP_DEPTH || !(await reap(path, seen, pid, depth))) return null;
  }
  return null;
}

/** What link(2) answers on a filesystem without hard links (some FUSE and network mounts). */
const NO_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/**
 * Creates `path` holding `text`, whole: false when it exists. Temp file + link(2), never O_EXCL then
 * write (a full disk left the file empty); the temp file goes whatever happens. Where the
 * filesystem has no hard links, O_EXCL then write it is (an empty file it may leave is taken over
 * after UNREADABLE_LOCK_MS).
 */
export async function linkWhole(path: string, text: string): Promise<boolean> {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await writeFile(tmp, text, { mode: 0o600, flag: "wx" });
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw asFileFault(error, path, "lock");
  }
  try {
    await link(tmp, path);
    return true;
  } catch (error) {
    if (isExists(error)) return false;
    if (NO_LINKS.has(String((error as { code?: unknown }).code))) return createExclusive(path, text);
    throw asFileFault(error, path, "lock");
  } finally {
    await rm(tmp, { force: true }).catch(() => undefined);
  }
}

async function createExclusive(path: string, text: string): Promise<boolean> {
  try {
    await writeFile(path, text, { mode: 0o600, flag: "wx" });
    return true;
  } catch (error) {
    if (isExists(error)) return false;
    throw asFileFault(error, path, "lock");
  }
}

function ownLock(path: string, mine: string): Lock {
  return {
    async release() {
      // Only our own lock (a live holder's is never taken, but a file put there by hand may be).
      if ((await readFile(path, "utf8").catch(() => null)) === mine) await rm(path, { force: true });
    },
  };
}

/** One lock file as read: its text and the identity of the file that held it (`ino`: exact, decimal). */
export type SeenLock = { readonly text: string; readonly ino: string; readonly mtimeMs: number };

/** The lock file's text, inode and mtime, read through one descriptor (so all three are one file's). */
export async function readLock(path: string): Promise<SeenLock | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw asFileFault(error, path, "lock");
  }
  try {
    return { text: await handle.readFile("utf8"), ...(await fileIdentity(handle)) };
  } catch (error) {
    throw asFileFault(error, path, "lock");
  } finally {
    await handle.close();
  }
}

/**
 * The open file's inode, exact (a 64-bit inode, as overlayfs gives, is past a double's 53 bits), and
 * its mtime in ms.
 */
export async function fileIdentity(
  handle: Awaited<ReturnType<typeof open>>,
): Promise<Pick<SeenLock, "ino" | "mtimeMs">> {
  const stat = await handle.stat({ bigint: true });
  return { ino: String(stat.ino), mtimeMs: Number(stat.mtimeNs) / 1e6 };
}

/**
 * The holder a lock names: a pid and its start (null: not recorded), or null when none can be read.
 * A workflow run's lock was once the bare pid and a newline.
 */
export function lockHolder(text: string): { pid: number; start: string | null } | null {
  if (/^\d+\n?$/.test(text)) return Number(text) > 0 ? { pid: Number(text), start: null } : null;
  try {
    const value = JSON.parse(text) as { pid?: unknown; start?: unknown };
    if (typeof value?.pid !== "number" || !Number.isInteger(value.pid) || value.pid <= 0) return null;
    return { pid: value.pid, start: typeof value.start === "string" ? value.start : null };
  } catch {
    return null;
  }
}

/**
 * Whether the lock is still its holder's: the holder's pid runs and started when the lock says
 * (launch.sh records no start). With no readable holder, only while it is younger than
 * UNREADABLE_LOCK_MS (either way: a date far in the future is a clock set back since).
 */
export async function isHeld(seen: SeenLock, now = Date.now()): Promise<boolean> {
  const holder = lockHolder(seen.text);
  if (holder === null) return Math.abs(now - seen.mtimeMs) < UNREADABLE_LOCK_MS;
  return isRunning(holder);
}

async function isRunning(holder: { pid: number; start: string | null }): Promise<boolean> {
  try {
    process.kill(holder.pid, 0);
  } catch (error) {
    if ((error as { code?: string }).code !== "EPERM") return false;
  }
  const start = await processStart(holder.pid);
  // A start that cannot be read (macOS's ps timed out under load) is no proof the holder is gone.
  return start === null || holder.start === null || start === holder.start;
}

/**
 * Removes the stale lock `seen`, and nothing else: a taker that judged it stale takes a marker lock
 * named for that very file (`<lock>.reap-<id>`), so of the takers that judged it, one at a time
 * removes it; under the marker it checks the lock is still that file and still stale, then unlinks
 * it. The lock's file changes only by its holder's release (none: it is stale) or a marker holder's
 * unlink, so what was checked is what goes. A taker that judged an older file finds the lock
 * changed and leaves it. A marker left by a reaper that died is stale like any lock (its holder is
 * gone) and taken over the same way, one level down. false: another taker is removing it (or it
 * is no longer stale).
 */
export function removeStale(path: string, seen: SeenLock): Promise<boolean> {
  return reap(path, seen, process.pid, 0);
}

async function reap(path: string, seen: SeenLock, pid: number, depth: number): Promise<boolean> {
  const held = await take(reapMarker(path, seen), pid, depth + 1);
  if (held === null) return false;
  try {
    const now = await readLock(path);
    if (now === null || !isSame(now, seen)) return true;
    if (await isHeld(now)) return false;
    await rm(path, { force: true }).catch((error: unknown) => {
      throw asFileFault(error, path, "remove");
    });
    return true;
  } finally {
    await held.release();
  }
}

function isSame(a: SeenLock, b: SeenLock): boolean {
  return a.ino === b.ino && a.mtimeMs === b.mtimeMs && a.text === b.text;
}

/**
 * The marker a reaper of that one lock file holds: named for its inode, which hooks/launch.sh's
 * retire reads too (`ls -di`: its mtime as a JavaScript number is out of a shell's reach), so umbel
 * and the shell take the same marker. Two files that held one inode in turn share a marker, which
 * only makes their reapers wait for each other: under it, each checks the lock is still the very
 * file it judged (inode, mtime and text).
 */
export function reapMarker(path: string, seen: SeenLock): string {
  return `${path}.reap-${seen.ino}`;
}
