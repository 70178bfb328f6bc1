import type { Stats } from "node:fs";
import { chmod, lstat, mkdir, rm, rmdir, stat, symlink } from "node:fs/promises";
import type { HomeEntry } from "../../core/providers/home-types.ts";
import { asFileFault, isNotFound, onPath, readTextOrNull, writeFileAtomic } from "../files.ts";

/**
 * The text of each path (null when missing), for a provider's home.plan. Any other fault is a
 * FileAccessError naming the file: an unreadable config or credential read as "missing" started the
 * worker without the user's settings, or on a sign-in screen.
 */
export async function readHomeSources(paths: readonly string[]): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const path of paths) out[path] = await readTextOrNull(path);
  return out;
}

/**
 * Makes a provider home: dirs (mode as planned), files atomically with their mode, and links only
 * to targets that exist and only where nothing is yet. Returns what it created, for an unwind.
 */
export async function layOutHome(entries: readonly HomeEntry[]): Promise<string[]> {
  const created: string[] = [];
  for (const entry of entries) {
    const existing = await lstatOrNull(entry.path);
    if (entry.kind === "dir") {
      // A home an older umbel made 0755 is tightened: every dir umbel makes under the root is 0700.
      if (existing?.isDirectory() && (existing.mode & 0o777) !== entry.mode)
        await onPath(entry.path, "write", () => chmod(entry.path, entry.mode));
      if (existing) continue;
      await onPath(entry.path, "create", () => mkdir(entry.path, { mode: entry.mode }));
      created.push(entry.path);
    } else if (entry.kind === "file") {
      await writeFileAtomic(entry.path, entry.content, entry.mode);
      if (!existing) created.push(entry.path);
    } else {
      if (existing || !(await stat(entry.target).catch(() => null))) continue;
      await onPath(entry.path, "create", () => symlink(entry.target, entry.path));
      created.push(entry.path);
    }
  }
  return created;
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  try {
    return await lstat(path);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw asFileFault(error, path, "inspect");
  }
}

/**
 * Removes paths without following links: a link goes, never its target; a directory goes only when
 * empty (a shared home may hold other workers' files). Latest first, so dirs come after their files.
 */
export async function removeHomePaths(paths: readonly string[]): Promise<void> {
  for (const path of [...paths].reverse()) {
    const info = await lstat(path).catch(() => null);
    if (!info) continue;
    if (info.isDirectory()) await rmdir(path).catch(() => undefined);
    else await rm(path, { force: true }).catch(() => undefined);
  }
}
