import { lstat, mkdir, readdir, readlink, rename, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { fsFaultError, plantedLinkError } from "../core/common/fs-fault.ts";
import { parseJson, parseJsonObject } from "../core/common/json.ts";
import { NameTakenError, StateError, WorkerIncompleteError, WorkerNotFoundError } from "../core/errors.ts";
import type { Lock, StorePort } from "../core/ports.ts";
import type { ExitRecord } from "../core/wait/outcome.ts";
import { Meta } from "../core/worker/meta.ts";
import { createAccountsStore } from "./accounts/store.ts";
import {
  asFileFault,
  isExists,
  isMissingFault,
  isNotFound,
  onPath,
  readTextOrNull,
  writeFileInDir,
} from "./files.ts";
import { takeLock } from "./lock-file.ts";
import { findLocks } from "./lock-scan.ts";
import { createPoolStore } from "./pool/store.ts";
import { killTree } from "./process.ts";
import { createBootSlots } from "./spawn/boot-slots.ts";

/**
 * The filesystem is the state store: $UMBEL_HOME (default ~/.umbel, 0700) holds
 * sessions/<name>/{meta.json, events/hooks.jsonl, events/exit.json, last-screen.txt}.
 */
export function resolveStateRoot(env: Readonly<Record<string, string | undefined>>): string {
  return resolve(env.UMBEL_HOME || join(env.HOME || homedir(), ".umbel"));
}

/**
 * `ready` is the state root check (adapters/state-root.ts): every access but `paths` awaits it, so
 * the first one in a process checks the root and the rest find it done. A fault other than a
 * missing file is a FileAccessError naming the path (an exit.json that is a directory used to fail
 * prune with exit 70 for every worker).
 */
export function createStore(root: string, ready: () => Promise<void>): StorePort {
  const sessions = join(root, "sessions");
  const dir = (name: string) => join(sessions, name);
  const paths = (name: string) => ({
    dir: dir(name),
    meta: join(dir(name), "meta.json"),
    events: join(dir(name), "events"),
    hooksLog: join(dir(name), "events", "hooks.jsonl"),
    exit: join(dir(name), "events", "exit.json"),
    lastScreen: join(dir(name), "last-screen.txt"),
  });

  /** mkdir is atomic: of two spawns of one name, exactly one gets here without EEXIST. */
  async function claim(name: string): Promise<void> {
    await ready();
    await onPath(sessions, "create", () => mkdir(sessions, { recursive: true, mode: 0o700 }));
    try {
      await mkdir(dir(name), { mode: 0o700 });
    } catch (error) {
      if (isExists(error)) throw new NameTakenError(`a worker named ${name} already exists`, { name });
      throw asFileFault(error, dir(name), "create");
    }
    await onPath(paths(name).events, "create", () => mkdir(paths(name).events, { mode: 0o700 }));
  }

  return {
    checkRoot: ready,
    root,
    paths,
    claim,
    ...createPoolStore(root, dir, ready),
    ...createAccountsStore(root, ready),
    ...createBootSlots(root, ready),

    async writeMeta(meta: Meta): Promise<void> {
      await ready();
      await writeOwnFile(
        meta.name,
        dir(meta.name),
        paths(meta.name).meta,
        `${JSON.stringify(meta, null, 2)}\n`,
      );
    },

    /**
     * Missing and corrupt are different answers: no directory is WorkerNotFoundError, a directory
     * with no meta.json yet is WorkerIncompleteError (a spawn in progress, or one that died
     * half-way), and a meta.json that does not parse is a StateError naming the file.
     */
    async readMeta(name: string): Promise<Meta> {
      await ready();
      const path = paths(name).meta;
      const text = await readTextOrNull(path);
      if (text !== null) return parseMeta(name, path, text);
      if ((await changedAt(dir(name))) !== null)
        throw new WorkerIncompleteError(`worker ${name} is being created or was left half-made`, { name });
      throw new WorkerNotFoundError(`no worker named ${name}`, { name });
    },

    async exists(name: string): Promise<boolean> {
      await ready();
      return (await readTextOrNull(paths(name).meta)) !== null;
    },

    async listNames(): Promise<string[]> {
      await ready();
      try {
        // A link is a taken-over spare's old name (adapters/pool/store.ts linkAlias), not a worker of its own.
        return (await readdir(sessions, { withFileTypes: true }))
          .filter((e) => !e.name.startsWith(".") && !e.isSymbolicLink())
          .map((e) => e.name)
          .sort();
      } catch (error) {
        if (isNotFound(error)) return [];
        throw asFileFault(error, sessions, "list");
      }
    },

    async readHooksLog(name: string): Promise<string> {
      await ready();
      return (await readTextOrNull(paths(name).hooksLog)) ?? "";
    },

    async readExit(name: string): Promise<ExitRecord | null> {
      await ready();
      const text = await readTextOrNull(paths(name).exit);
      if (text === null) return null;
      return (parseJsonObject(text) as ExitRecord | null) ?? { exitCode: -1 };
    },

    async writeLastScreen(name: string, screen: string): Promise<void> {
      await ready();
      await writeOwnFile(name, dir(name), paths(name).lastScreen, screen);
    },

    async readLastScreen(name: string): Promise<string | null> {
      await ready();
      return readTextOrNull(paths(name).lastScreen);
    },

    /**
     * First out of sight in one rename (to a dot name, which listNames skips, and where the hooks'
     * and the wrapper's paths no longer reach), then removed. Bun 1.4.5's rm({recursive, force})
     * stops at an entry that vanished mid-walk (a hook's temp file) and reports success with the
     * rest of the tree still there (oven-sh/bun#35800): meta.json stayed, and the worker with it.
     */
    async remove(name: string): Promise<void> {
      await ready();
      const gone = join(sessions, `.removed-${name}-${process.pid}-${Math.random().toString(36).slice(2)}`);
      try {
        await rename(dir(name), gone);
      } catch (error) {
        if (isNotFound(error)) return;
        throw asFileFault(error, dir(name), "remove");
      }
      await removeTree(gone);
    },

    async stopNotifies(name: string): Promise<number> {
      await ready();
      const entries = await readdir(dir(name)).catch((error: unknown) => {
        if (isNotFound(error)) return [];
        throw asFileFault(error, dir(name), "list");
      });
      let stopped = 0;
      for (const entry of entries) {
        if (!/^notify\.\d+\.pgid$/.test(entry)) continue;
        const pid = Number((await readTextOrNull(join(dir(name), entry)))?.trim());
        // The hook removes the file once its command is over: one left by a killed hook names a
        // process that may be gone, or a pid reused since, which killTree leaves alone (its argv
        // does not hold this file's path).
        if (!Number.isInteger(pid) || pid === process.pid) continue;
        if (await killTree(pid, join(dir(name), entry))) stopped++;
      }
      return stopped;
    },

    async removeAliases(name: string): Promise<string[]> {
      await ready();
      const entries = await readdir(sessions, { withFileTypes: true }).catch((error: unknown) => {
        if (isNotFound(error)) return [];
        throw asFileFault(error, sessions, "list");
      });
      const removed: string[] = [];
      for (const entry of entries) {
        if (!entry.isSymbolicLink()) continue;
        const link = join(sessions, entry.name);
        // adopt links the old name to the new one by its bare name (adapters/pool/store.ts).
        if ((await readlink(link).catch(() => null)) !== name) continue;
        await onPath(link, "remove", () => rm(link, { force: true }));
        removed.push(entry.name);
      }
      return removed;
    },

    async dirChangedAt(name: string): Promise<number | null> {
      await ready();
      return changedAt(dir(name));
    },

    async eventsChangedAt(name: string): Promise<number | null> {
      await ready();
      return changedAt(paths(name).hooksLog);
    },

    async lock(name: string, key: string): Promise<Lock | null> {
      await ready();
      return takeLock(join(dir(name), `${key}.lock`), process.pid);
    },

    async locks() {
      await ready();
      return findLocks(root);
    },

    async readWorkerFile(name: string, file: string): Promise<string | null> {
      await ready();
      return readTextOrNull(join(dir(name), plainName(file)));
    },

    async writeWorkerFile(name: string, file: string, content: string | null): Promise<void> {
      await ready();
      const path = join(dir(name), plainName(file));
      if (content === null) await onPath(path, "remove", () => rm(path, { force: true }));
      else await writeOwnFile(name, dir(name), path, content);
    },
  };
}

/**
 * A file of worker `name`'s, written atomically into its directory `workerDir` as it is (and into
 * `subdir`, one level inside it, made when missing): never made again once the worker was removed.
 * A late write (a kill racing a prune, the StructuredOutput server of a worker just purged) is
 * WorkerNotFoundError; writing the whole meta.json back would bring a pruned worker back into ls.
 * A `subdir` that is a symbolic link (one planted as guards/) is refused, never written through.
 */
export async function writeOwnFile(
  name: string,
  workerDir: string,
  path: string,
  content: string,
  subdir?: string,
): Promise<void> {
  try {
    if (subdir !== undefined)
      await mkdir(subdir, { mode: 0o700 }).catch(async (error: unknown) => {
        if (!isExists(error)) throw asFileFault(error, subdir, "create");
        const info = await onPath(subdir, "inspect", () => lstat(subdir));
        if (info.isSymbolicLink()) throw plantedLinkError(subdir, "write");
      });
    await writeFileInDir(path, content);
  } catch (error) {
    if (isMissingFault(error) && (await changedAt(workerDir)) === null)
      throw new WorkerNotFoundError(`no worker named ${name}: it was removed while umbel wrote ${path}`, {
        name,
        path,
      });
    throw error;
  }
}

/** A worker file is a plain name in its session dir: a path would write outside it. */
function plainName(file: string): string {
  if (!/^[a-z][a-z0-9.-]*$/.test(file)) throw new StateError(`not a worker file name: ${file}`, { file });
  return file;
}

function parseMeta(name: string, path: string, text: string): Meta {
  const value = parseJson(text);
  if (value === undefined)
    throw new StateError(`meta.json of worker ${name} is not valid JSON: ${path}; ${META_FIX(name)}`, {
      name,
      path,
      fix: "fix or remove that file",
    });
  const parsed = Meta.safeParse(value);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const why = issue ? `${issue.path.join(".") || "the record"}: ${issue.message}` : "not a worker record";
  throw new StateError(`meta.json of worker ${name} is unreadable (${why}): ${path}; ${META_FIX(name)}`, {
    name,
    path,
    why,
    fix: "fix or remove that file",
  });
}

/** rm, again while anything is left (see remove): a pass that stopped early left less each time. */
async function removeTree(path: string): Promise<void> {
  for (let pass = 0; pass < 5; pass++) {
    await onPath(path, "remove", () => rm(path, { recursive: true, force: true }));
    if ((await changedAt(path)) === null) return;
  }
  throw fsFaultError({ errno: "ENOTEMPTY", path, action: "remove" });
}

const META_FIX = (name: string) =>
  `fix or remove that file, or remove the worker: umbel kill ${name} --purge`;

async function changedAt(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw asFileFault(error, path, "inspect");
  }
}
