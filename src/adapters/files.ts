import {
  type FileHandle,
  mkdir,
  open,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  writeFile,
} from "node:fs/promises";
import { dirname } from "node:path";
import type { FilesPort } from "../core/ports.ts";

/** Temp file + rename in the same directory: readers see the old or the new file, never half. */
export async function writeFileAtomic(path: string, content: string, mode = 0o600): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(tmp, content, { mode });
  await rename(tmp, path);
}

/** The file's text, or null when it does not exist. */
export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The first `maxBytes` bytes of the file, and whether that was all; null when it does not exist. */
export async function readHeadOrNull(
  path: string,
  maxBytes: number,
): Promise<{ text: string; complete: boolean } | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
  try {
    // One byte past the limit tells "exactly maxBytes" from "more".
    const buffer = Buffer.alloc(maxBytes + 1);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, null);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    const complete = filled <= maxBytes;
    return { text: buffer.toString("utf8", 0, Math.min(filled, maxBytes)), complete };
  } finally {
    await handle.close();
  }
}

export function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "ENOENT";
}

export function isExists(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "EEXIST";
}

/** The size in bytes, or null when the file does not exist. */
export async function sizeOrNull(path: string): Promise<number | null> {
  try {
    return (await stat(path)).size;
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    if (isNotFound(error) || (error as { code?: unknown }).code === "ENOTDIR") return false;
    throw error;
  }
}

/** The real filesystem as the FilesPort. */
export const fileSystem: FilesPort = {
  readText: readTextOrNull,
  readHead: readHeadOrNull,
  size: sizeOrNull,
  writeAtomic: writeFileAtomic,
  remove: (path) => rm(path, { force: true }),
  realpath: (path) => realpath(path),
  isDirectory,
};
