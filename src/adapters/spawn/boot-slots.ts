import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { StorePort } from "../../core/ports.ts";
import { onPath } from "../files.ts";
import { takeLock } from "../lock-file.ts";

/**
 * The state root's boot slots (UMBEL_MAX_STARTING): `starting/<provider>-<i>.lock`, each an O_EXCL
 * lock file with its holder's pid and start, so a spawn that died frees its slot for the next taker.
 */
export function createBootSlots(
  root: string,
  ready: () => Promise<void>,
): Pick<StorePort, "bootSlot" | "bootSlotsDir"> {
  const dir = join(root, "starting");
  return {
    bootSlotsDir: dir,
    async bootSlot(group, slots) {
      await ready();
      await onPath(dir, "create", () => mkdir(dir, { recursive: true, mode: 0o700 }));
      for (let i = 0; i < slots; i++) {
        const lock = await takeLock(join(dir, `${group}-${i}.lock`), process.pid);
        if (lock) return lock;
      }
      return null;
    },
  };
}
