import { lstat, mkdir, rm, rmdir, stat, symlink } from "node:fs/promises";
import type { HomeEntry } from "../core/providers/home-types.ts";
import { readTextOrNull, writeFileAtomic } from "./files.ts";

/** The text of each path (null when missing or unreadable), for a provider's home.plan. */
export async function readHomeSources(paths: readonly string[]): Promise<Record<string, string | null>> {
  const out: Record<string, string | null> = {};
  for (const path of paths) out[path] = await readTextOrNull(path).catch(() => null);
  return out;
}

/**
 * Makes a provider home: dirs (mode as planned), files atomically with their mode, and links only
 * to targets that exist and only where nothing is yet. Returns what it created, for an unwind.
 */
export async function layOutHome(entries: readonly HomeEntry[]): Promise<string[]> {
  const created: string[] = [];
  for (const entry of entries) {
    const existing = await lstat(entry.path).catch(() => null);
    if (entry.kind === "dir") {
      if (existing) continue;
      await mkdir(entry.path, { mode: entry.mode });
      created.push(entry.path);
    } else if (entry.kind === "file") {
      await writeFileAtomic(entry.path, entry.content, entry.mode);
      if (!existing) created.push(entry.path);
    } else {
      if (existing || !(await stat(entry.target).catch(() => null))) continue;
      await symlink(entry.target, entry.path);
      created.push(entry.path);
    }
  }
  return created;
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
