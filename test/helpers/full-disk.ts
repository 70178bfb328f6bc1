import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A small tmpfs of its own (mount needs root: the suite runs as root in CI's container), so a test
 * can fill a filesystem and see what umbel does on a full disk. null where it cannot be mounted.
 */
export type TinyDisk = {
  readonly dir: string;
  /** Writes until the filesystem says ENOSPC. */
  fill(): void;
  dispose(): Promise<void>;
};

export async function mountTinyDisk(sizeKb = 512): Promise<TinyDisk | null> {
  const dir = await mkdtemp(join(tmpdir(), "umbel-disk-"));
  const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", `size=${sizeKb}k,mode=0700`, "tmpfs", dir], {
    stdout: "ignore",
    stderr: "ignore",
  });
  if (mount.exitCode !== 0) {
    await rm(dir, { recursive: true, force: true });
    return null;
  }
  return {
    dir,
    fill() {
      const fd = openSync(join(dir, "filler"), "a");
      const block = Buffer.alloc(4096, 1);
      try {
        for (;;) writeSync(fd, block);
      } catch (error) {
        if ((error as { code?: string }).code !== "ENOSPC") throw error;
      } finally {
        closeSync(fd);
      }
    },
    async dispose() {
      Bun.spawnSync(["umount", "-l", dir], { stdout: "ignore", stderr: "ignore" });
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Whether this machine lets the tests mount one (probed once per test file, before its tests are declared). */
export function canMountTinyDisk(): boolean {
  const dir = mkdtempSync(join(tmpdir(), "umbel-disk-"));
  try {
    const mount = Bun.spawnSync(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", dir], {
      stdout: "ignore",
      stderr: "ignore",
    });
    if (mount.exitCode !== 0) return false;
    Bun.spawnSync(["umount", "-l", dir], { stdout: "ignore", stderr: "ignore" });
    return true;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
