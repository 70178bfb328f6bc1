import type { Stats } from "node:fs";
import { chmod, lstat, mkdir, readlink, stat } from "node:fs/promises";
import {
  assessStateRoot,
  type StateRootObservation,
  type StateRootVerdict,
} from "../core/worker/state-root.ts";
import { asFileFault, isNotFound, onPath } from "./files.ts";

/**
 * The state root check (core/worker/state-root.ts decides): the store and the workflow runs call it before
 * their first access, once per process (a failure is retried at the next access: an MCP server
 * outlives a fix). It costs one lstat when all is well (two through a link, a chmod to tighten).
 */
export function createRootCheck(root: string, uid: number | null): () => Promise<void> {
  let checked: Promise<void> | null = null;
  return () => {
    checked ??= checkStateRoot(root, uid).catch((error: unknown) => {
      checked = null;
      throw error;
    });
    return checked;
  };
}

/** Makes the root usable: creates it (0700) or takes group and other bits away; else throws why not. */
async function checkStateRoot(root: string, uid: number | null): Promise<void> {
  let verdict = await inspectStateRoot(root, uid);
  if (verdict.action === "create") {
    await onPath(root, "create", () => mkdir(root, { recursive: true, mode: 0o700 }));
    // Another process may have made it meanwhile; and a umask can take owner bits from mkdir's mode.
    verdict = await inspectStateRoot(root, uid);
  }
  if (verdict.action === "refuse") throw verdict.error;
  if (verdict.action === "tighten") {
    const mode = verdict.mode;
    await onPath(root, "write", () => chmod(root, mode));
  }
}

/** What the check would do, without doing it (doctor reports this). */
export async function inspectStateRoot(root: string, uid: number | null): Promise<StateRootVerdict> {
  return assessStateRoot(root, await observeStateRoot(root), uid);
}

async function observeStateRoot(root: string): Promise<StateRootObservation> {
  const entry = await statOrNull(root, lstat);
  if (entry === null) return { kind: "missing" };
  const info = entry.isSymbolicLink() ? await statOrNull(root, stat) : entry;
  if (info === null) return { kind: "dangling-link", target: await readlink(root).catch(() => "?") };
  if (!info.isDirectory()) return { kind: "not-a-directory" };
  return { kind: "directory", uid: info.uid, mode: info.mode & 0o7777 };
}

async function statOrNull(path: string, how: typeof stat): Promise<Stats | null> {
  try {
    return await how(path);
  } catch (error) {
    if (isNotFound(error)) return null;
    throw asFileFault(error, path, "inspect");
  }
}
