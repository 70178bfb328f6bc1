import { readdir } from "node:fs/promises";
import { join } from "node:path";
import type { LockInfo } from "../core/ports.ts";
import { asFileFault, isNotFound } from "./files.ts";
import { isHeld, lockHolder, readLock } from "./lock-file.ts";

/**
 * A lock's name, or a takeover's marker beside it (`send.lock.reap-<inode>`: lock-file.ts; an earlier
 * umbel named them with 16 hex digits).
 */
const LOCK_NAME = /\.lock(?:\.reap-[0-9a-f]+)*$/;
const RUN_LOCK = /^lock(?:\.reap-[0-9a-f]+)*$/;

/**
 * Every lock file of the state root, for `doctor`: each worker's (`sessions/<name>/*.lock`), the boot
 * slots (`starting/`) and the workflow runs' (`workflows/<id>/lock`), judged as a taker would.
 */
export async function findLocks(root: string): Promise<LockInfo[]> {
  const sessions = join(root, "sessions");
  const runs = join(root, "workflows");
  const paths = [
    ...(await inDirs(sessions, LOCK_NAME)),
    ...(await inDir(join(root, "starting"), LOCK_NAME)),
    ...(await inDirs(runs, RUN_LOCK)),
  ];
  const now = Date.now();
  const found = await Promise.all(
    paths.map(async (path): Promise<LockInfo | null> => {
      const seen = await readLock(path).catch(() => null);
      if (seen === null) return null; // released since the listing (or not a file to read)
      const holder = lockHolder(seen.text);
      return {
        path,
        holder: holder === null ? null : { pid: holder.pid },
        held: await isHeld(seen, now),
        ageMs: Math.max(0, Math.round(now - seen.mtimeMs)),
      };
    }),
  );
  return found.filter((l): l is LockInfo => l !== null);
}

/** The matching files of every directory in `parent` (a claimed spare's old name, a link, is skipped). */
async function inDirs(parent: string, name: RegExp): Promise<string[]> {
  const dirs = (await list(parent)).filter((e) => e.isDirectory()).map((e) => join(parent, e.name));
  return (await Promise.all(dirs.map((d) => inDir(d, name)))).flat();
}

async function inDir(dir: string, name: RegExp): Promise<string[]> {
  return (await list(dir)).filter((e) => e.isFile() && name.test(e.name)).map((e) => join(dir, e.name));
}

async function list(dir: string) {
  try {
    return await readdir(dir, { withFileTypes: true });
  } catch (error) {
    if (isNotFound(error)) return [];
    throw asFileFault(error, dir, "list");
  }
}
