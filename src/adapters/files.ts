import {
  type FileHandle,
  lstat,
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
import { type FsAction, fsFaultError, isFsFault, plantedLinkError } from "../core/common/fs-fault.ts";
import { FileAccessError } from "../core/errors.ts";
import type { FilesPort } from "../core/ports.ts";

/**
 * A filesystem fault (an errno) as a FileAccessError naming `path` and what to do; anything else
 * (a bug) unchanged. Bun's errors for some calls carry no path (EISDIR on read), so the caller's is used.
 */
export function asFileFault(error: unknown, path: string, action: FsAction): unknown {
  return isFsFault(error) ? fsFaultError({ errno: error.code, path, action }, error) : error;
}

/** Runs one filesystem call on `path`; its errno becomes a FileAccessError naming `path`. */
export async function onPath<T>(path: string, action: FsAction, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw asFileFault(error, path, action);
  }
}

/** Temp file + rename in the same directory: readers see the old or the new file, never half. */
export async function writeFileAtomic(
  path: string,
  content: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  const dir = dirname(path);
  await onPath(dir, "create", () => mkdir(dir, { recursive: true, mode: 0o700 }));
  await writeFileInDir(path, content, mode);
}

/**
 * writeFileAtomic into a directory that must exist (a FileAccessError with errno ENOENT when it does
 * not): a worker's files, so that a late write never makes a removed worker's directory again.
 */
export async function writeFileInDir(
  path: string,
  content: string | Uint8Array,
  mode = 0o600,
): Promise<void> {
  const tmp = `${path}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  try {
    await onPath(tmp, "write", () => writeFile(tmp, content, { mode }));
    await onPath(path, "write", () => rename(tmp, path));
  } catch (error) {
    await rm(tmp, { force: true }).catch(() => undefined);
    throw error;
  }
}

/** The file's text, or null when it does not exist; any other fault is a FileAccessError. */
export async function readTextOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, "utf8");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw asFileFault(error, path, "read");
  }
}

/** The first `maxBytes` bytes of the file, and whether that was all; null when it does not exist. */
async function readHeadOrNull(
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

/** ENOENT, raw or as the FileAccessError onPath made of it. */
export function isMissingFault(error: unknown): boolean {
  return isNotFound(error) || (error instanceof FileAccessError && error.data.errno === "ENOENT");
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
    throw asFileFault(error, path, "inspect");
  }
}

/** stat's answers that mean "no directory here" for a path the user gave (a name too long, a loop). */
const NOT_A_DIRECTORY = new Set(["ENOENT", "ENOTDIR", "ENAMETOOLONG", "ELOOP"]);

export async function isDirectory(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isDirectory();
  } catch (error) {
    if (NOT_A_DIRECTORY.has(String((error as { code?: unknown }).code))) return false;
    throw asFileFault(error, path, "inspect");
  }
}

/**
 * A folder of umbel's own under the state root (guards/, workflows/, worktrees/): made 0700 when
 * missing; a symbolic link there is refused (FileAccessError), never followed.
 */
export async function ownDirectory(path: string): Promise<void> {
  let info: Awaited<ReturnType<typeof lstat>> | null;
  try {
    info = await lstat(path);
  } catch (error) {
    if (!isNotFound(error)) throw asFileFault(error, path, "inspect");
    info = null;
  }
  if (info?.isSymbolicLink()) throw plantedLinkError(path, "write");
  if (info === null) await onPath(path, "create", () => mkdir(path, { recursive: true, mode: 0o700 }));
}

/** The file's size and SHA-256, read in chunks (a workflow's 30 MB output is never held whole). */
async function digestOrNull(path: string): Promise<{ bytes: number; sha256: string } | null> {
  let handle: FileHandle;
  try {
    handle = await open(path, "r");
  } catch (error) {
    if (isNotFound(error)) return null;
    throw asFileFault(error, path, "read");
  }
  try {
    const hasher = new Bun.CryptoHasher("sha256");
    const buffer = Buffer.alloc(1 << 20);
    let bytes = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      if (bytesRead === 0) break;
      hasher.update(buffer.subarray(0, bytesRead));
      bytes += bytesRead;
    }
    return { bytes, sha256: hasher.digest("hex") };
  } catch (error) {
    throw asFileFault(error, path, "read");
  } finally {
    await handle.close();
  }
}

/** The real filesystem as the FilesPort. */
export const fileSystem: FilesPort = {
  readText: readTextOrNull,
  readHead: readHeadOrNull,
  size: sizeOrNull,
  digest: digestOrNull,
  ownDirectory,
  writeAtomic: writeFileAtomic,
  remove: (path) => onPath(path, "remove", () => rm(path, { force: true })),
  realpath: (path) => onPath(path, "inspect", () => realpath(path)),
  isDirectory,
};
