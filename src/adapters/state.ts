import { chmod, mkdir, readdir, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { join, resolve } from "node:path";
import { NameTakenError, StateError, WorkerNotFoundError } from "../core/errors.ts";
import { Meta } from "../core/meta.ts";
import type { ExitRecord } from "../core/outcome.ts";
import type { Lock, StorePort } from "../core/ports.ts";
import { isExists, isNotFound, readTextOrNull, writeFileAtomic } from "./files.ts";
import { takeLock } from "./lock-file.ts";

/**
 * The filesystem is the state store: $UMBEL_HOME (default ~/.umbel, 0700) holds
 * sessions/<name>/{meta.json, events/hooks.jsonl, events/exit.json, last-screen.txt}.
 */
export function resolveStateRoot(env: Readonly<Record<string, string | undefined>>): string {
  return resolve(env.UMBEL_HOME || join(env.HOME || homedir(), ".umbel"));
}

export function createStore(root: string): StorePort & { ensureRoot(): Promise<void> } {
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

  async function ensureRoot(): Promise<void> {
    await mkdir(sessions, { recursive: true, mode: 0o700 });
    await chmod(root, 0o700);
  }

  return {
    root,
    paths,
    ensureRoot,

    /** mkdir is atomic: of two spawns of one name, exactly one gets here without EEXIST. */
    async claim(name: string): Promise<void> {
      await ensureRoot();
      try {
        await mkdir(dir(name), { mode: 0o700 });
      } catch (error) {
        if (isExists(error)) throw new NameTakenError(`a worker named ${name} already exists`, { name });
        throw error;
      }
      await mkdir(paths(name).events, { mode: 0o700 });
    },

    async writeMeta(meta: Meta): Promise<void> {
      await writeFileAtomic(paths(meta.name).meta, `${JSON.stringify(meta, null, 2)}\n`);
    },

    async readMeta(name: string): Promise<Meta> {
      const text = await readTextOrNull(paths(name).meta);
      if (text === null) {
        const exists = await stat(dir(name)).then(
          () => true,
          () => false,
        );
        if (exists) throw new StateError(`worker ${name} is being created or was left half-made`, { name });
        throw new WorkerNotFoundError(`no worker named ${name}`, { name });
      }
      const parsed = Meta.safeParse(safeJson(text));
      if (!parsed.success) throw new StateError(`meta.json of ${name} is unreadable`, { name });
      return parsed.data;
    },

    async exists(name: string): Promise<boolean> {
      return (await readTextOrNull(paths(name).meta)) !== null;
    },

    async listNames(): Promise<string[]> {
      try {
        return (await readdir(sessions)).filter((n) => !n.startsWith(".")).sort();
      } catch (error) {
        if (isNotFound(error)) return [];
        throw error;
      }
    },

    async readHooksLog(name: string): Promise<string> {
      return (await readTextOrNull(paths(name).hooksLog)) ?? "";
    },

    async readExit(name: string): Promise<ExitRecord | null> {
      const text = await readTextOrNull(paths(name).exit);
      if (text === null) return null;
      const value = safeJson(text);
      return value && typeof value === "object" ? (value as ExitRecord) : { exitCode: -1 };
    },

    async writeLastScreen(name: string, screen: string): Promise<void> {
      await writeFileAtomic(paths(name).lastScreen, screen);
    },

    async readLastScreen(name: string): Promise<string | null> {
      return readTextOrNull(paths(name).lastScreen);
    },

    async remove(name: string): Promise<void> {
      await rm(dir(name), { recursive: true, force: true });
    },

    async dirChangedAt(name: string): Promise<number | null> {
      return changedAt(dir(name));
    },

    async eventsChangedAt(name: string): Promise<number | null> {
      return changedAt(paths(name).hooksLog);
    },

    async lock(name: string, key: string): Promise<Lock | null> {
      return takeLock(join(dir(name), `${key}.lock`), process.pid);
    },
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

async function changedAt(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}
