import { constants } from "node:fs";
import { mkdir, open, rename, rmdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { FileAccessError, StateError } from "../../core/errors.ts";
import type { StorePort } from "../../core/ports.ts";
import { asFileFault, isExists, isNotFound, onPath } from "../files.ts";
import {
  fileIdentity,
  isHeld,
  linkWhole,
  removeStale,
  type SeenLock,
  UNREADABLE_LOCK_MS,
} from "../lock-file.ts";

/**
 * The warm pool's part of the state store (createStore spreads it in): the keyed hash that matches
 * spawns without writing any environment value, and the move of a taken-over spare to its new name.
 */
export function createPoolStore(
  root: string,
  dir: (name: string) => string,
  ready: () => Promise<void>,
): Pick<StorePort, "keyedHash" | "moveInto" | "linkAlias"> {
  let key: Promise<string> | null = null;
  return {
    async keyedHash(text) {
      key ??= readOrMakeKey(join(root, "pool.key"), ready);
      return new Bun.CryptoHasher("sha256", await key).update(text).digest("hex");
    },

    async moveInto(from, to) {
      // `to` is this process's claim (mkdir): its fresh, empty directory is replaced by `from`'s in
      // one rename, so no other spawn of `to` can win meanwhile (a removed events/ is made again).
      await ready();
      await rmdir(join(dir(to), "events")).catch((error: unknown) => {
        if (!isNotFound(error)) throw asFileFault(error, join(dir(to), "events"), "remove");
      });
      await onPath(dir(to), "write", () => rename(dir(from), dir(to)));
    },

    async linkAlias(from, to) {
      // The spare's running CLI and hooks write under its old path: a link keeps it (listNames skips links).
      await ready();
      await symlink(to, dir(from)).catch((error: unknown) => {
        if (!isExists(error)) throw asFileFault(error, dir(from), "create");
      });
    },
  };
}

/**
 * The state root's pool key: 32 random bytes as hex, made once: written whole and linked (of two
 * makers, one wins and the other reads its key). An empty one (an earlier umbel's, left by a full
 * disk between create and write) keys nothing: once older than the lock files' bound it is replaced.
 * Only a regular file is read, never through a link (O_NOFOLLOW; O_NONBLOCK: a FIFO never blocks):
 * anything else there is not umbel's key, and a FileAccessError says to remove it.
 */
async function readOrMakeKey(path: string, ready: () => Promise<void>): Promise<string> {
  await ready();
  await onPath(root(path), "create", () => mkdir(root(path), { recursive: true, mode: 0o700 }));
  for (let attempt = 0; attempt < 4; attempt++) {
    const seen = await readKey(path);
    const text = seen?.text.trim() ?? "";
    if (text !== "") return text;
    if (seen !== null && ((await isHeld(seen)) || !(await removeStale(path, seen)))) break;
    const made = Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex");
    if (await linkWhole(path, made)) return made;
  }
  throw new StateError(
    `the warm pool's key is empty: ${path} (it is replaced once ${UNREADABLE_LOCK_MS / 1000} s old; or remove it)`,
    { path },
  );
}

/** The key file as read (readLock's record, through O_NOFOLLOW); null when there is none yet. */
async function readKey(path: string): Promise<SeenLock | null> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    if (isNotFound(error)) return null;
    if ((error as { code?: string }).code === "ELOOP") throw notAKey(path, "a symbolic link");
    throw asFileFault(error, path, "read");
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw notAKey(path, stat.isDirectory() ? "a directory" : "not a regular file");
    return { text: await handle.readFile("utf8"), ...(await fileIdentity(handle)) };
  } finally {
    await handle.close();
  }
}

function notAKey(path: string, what: string): FileAccessError {
  return new FileAccessError(
    `the warm pool's key ${path} is ${what}, not the file umbel makes; remove it (pool warm makes a new one)`,
    { path, action: "read", hint: "remove it" },
  );
}

function root(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}
