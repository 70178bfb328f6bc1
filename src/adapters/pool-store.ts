import { mkdir, rename, rmdir, symlink } from "node:fs/promises";
import { join } from "node:path";
import { StateError } from "../core/errors.ts";
import type { StorePort } from "../core/ports.ts";
import { onPath } from "./files.ts";
import { isHeld, linkWhole, readLock, removeStale, UNREADABLE_LOCK_MS } from "./lock-file.ts";

/**
 * The warm pool's part of the state store (createStore spreads it in): the keyed hash that matches
 * spawns without writing any environment value, and the move of a claimed spare to its new name.
 */
export function createPoolStore(
  root: string,
  dir: (name: string) => string,
  claim: (name: string) => Promise<void>,
  ready: () => Promise<void>,
): Pick<StorePort, "keyedHash" | "adopt"> {
  let key: Promise<string> | null = null;
  return {
    async keyedHash(text) {
      key ??= readOrMakeKey(join(root, "pool.key"), ready);
      return new Bun.CryptoHasher("sha256", await key).update(text).digest("hex");
    },

    async adopt(from, to) {
      // The claim is mkdir (NameTakenError when `to` exists); its fresh, empty directory is then
      // replaced by `from`'s in one rename, so no other spawn of `to` can win meanwhile.
      await claim(to);
      await onPath(join(dir(to), "events"), "remove", () => rmdir(join(dir(to), "events")));
      await onPath(dir(to), "write", () => rename(dir(from), dir(to)));
      // The spare's running CLI and hooks write under its old path: a link keeps it (listNames skips links).
      await onPath(dir(from), "create", () => symlink(to, dir(from)));
    },
  };
}

/**
 * The state root's pool key: 32 random bytes as hex, made once: written whole and linked (of two
 * makers, one wins and the other reads its key). An empty one (an earlier umbel's, left by a full
 * disk between create and write) keys nothing: once older than the lock files' bound it is replaced.
 */
async function readOrMakeKey(path: string, ready: () => Promise<void>): Promise<string> {
  await ready();
  await onPath(root(path), "create", () => mkdir(root(path), { recursive: true, mode: 0o700 }));
  for (let attempt = 0; attempt < 4; attempt++) {
    const seen = await readLock(path);
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

function root(path: string): string {
  return path.slice(0, path.lastIndexOf("/")) || "/";
}
