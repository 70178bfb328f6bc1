import { open, readFile, rm } from "node:fs/promises";
import type { Lock } from "../core/ports.ts";
import { asFileFault, isExists, isNotFound, onPath } from "./files.ts";
import { processStart } from "./process-start.ts";

/**
 * An exclusive lock between processes: a file created with O_EXCL holding the holder's pid and
 * start. A holder that is gone (its pid ended, or now names another process) leaves a stale lock,
 * which the next taker removes. null: a live process holds it.
 */
export async function takeLock(path: string, pid: number): Promise<Lock | null> {
  const mine = JSON.stringify({ pid, start: await processStart(pid) });
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const handle = await open(path, "wx", 0o600);
      try {
        await handle.writeFile(mine);
      } finally {
        await handle.close();
      }
      return {
        async release() {
          // Only our own lock: a stale-lock taker may have replaced it meanwhile.
          if ((await readFile(path, "utf8").catch(() => null)) === mine) await rm(path, { force: true });
        },
      };
    } catch (error) {
      if (!isExists(error)) throw asFileFault(error, path, "lock");
      if (await holderAlive(path)) return null;
      await onPath(path, "remove", () => rm(path, { force: true }));
    }
  }
  return null;
}

async function holderAlive(path: string): Promise<boolean> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return false;
    throw asFileFault(error, path, "lock");
  }
  // A lock being written (created, not yet filled) belongs to a live process.
  if (text === "") return true;
  const holder = (() => {
    try {
      return JSON.parse(text) as { pid?: unknown; start?: unknown };
    } catch {
      return null;
    }
  })();
  if (!holder || typeof holder.pid !== "number") return false;
  const start = await processStart(holder.pid);
  return start !== null && (holder.start === null || holder.start === start);
}
