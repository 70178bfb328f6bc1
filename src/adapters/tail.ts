import { type FSWatcher, watch } from "node:fs";
import { open, stat } from "node:fs/promises";
import { dirname } from "node:path";
import type { FileTail } from "../core/ports.ts";
import { asFileFault, isNotFound } from "./files.ts";
import { createWakeup } from "./watch.ts";

/** The file's size in bytes, 0 when it does not exist yet: the offset a tail starts from. */
export async function fileSize(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if (isNotFound(error)) return 0;
    throw asFileFault(error, path, "inspect");
  }
}

/**
 * Follows a file that another process appends to (a transcript), from a byte offset, waking on
 * fs.watch of its folder and of `alsoWatch` (the worker's events folder, written beside every
 * transcript change by the hooks). The file and its folder may appear later: claude creates them
 * with the first prompt. `maxMs` in `next` is only the safety net for coalesced fs events.
 */
export function tailFile(path: string, offset: number, alsoWatch: readonly string[]): FileTail {
  let position = offset;
  let partial = Buffer.alloc(0);
  const wakeup = createWakeup();
  const notify = wakeup.notify;
  const watchers = new Map<string, FSWatcher>();
  const attach = (dir: string) => {
    if (watchers.has(dir)) return;
    try {
      const watcher = watch(dir, notify);
      watcher.on("error", () => {
        watcher.close();
        watchers.delete(dir);
      });
      watchers.set(dir, watcher);
    } catch {
      // not there yet: the next call tries again
    }
  };
  const attachAll = () => {
    for (const dir of [dirname(path), ...alsoWatch]) attach(dir);
  };
  attachAll();

  return {
    async read() {
      // Missing is "not yet"; any other fault (a directory there, no permission) names the file:
      // swallowed, it left a wait watching a transcript it could never read until its deadline.
      const handle = await open(path, "r").catch((error: unknown) => {
        if (isNotFound(error)) return null;
        throw asFileFault(error, path, "read");
      });
      if (!handle) return [];
      try {
        const { size } = await handle.stat();
        if (size <= position) return [];
        const chunk = Buffer.alloc(size - position);
        const { bytesRead } = await handle
          .read(chunk, 0, chunk.length, position)
          .catch((error: unknown) => Promise.reject(asFileFault(error, path, "read")));
        position += bytesRead;
        const data = Buffer.concat([partial, chunk.subarray(0, bytesRead)]);
        const end = data.lastIndexOf(0x0a);
        if (end < 0) {
          partial = data;
          return [];
        }
        partial = data.subarray(end + 1);
        return data.subarray(0, end).toString("utf8").split("\n");
      } finally {
        await handle.close();
      }
    },
    next(maxMs, signal) {
      attachAll();
      return wakeup.next(maxMs, signal);
    },
    poke: notify,
    close() {
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
      wakeup.release();
    },
  };
}
