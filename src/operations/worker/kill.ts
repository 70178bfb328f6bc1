import {
  FileAccessError,
  type StateError,
  WorkerIncompleteError,
  WorkerNotFoundError,
} from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import type { KillInput } from "../../core/schemas.ts";
import type { KillResult, PruneResult } from "../../core/worker/outputs.ts";
import { releaseWorktree } from "../fleet/worktree.ts";
import { brokenOf, isWorkerFault, purgeBroken } from "./broken.ts";
import { checkLiveness, deadPaneScreen, type Liveness, loadWorker, type Worker } from "./worker.ts";

/**
 * Records the last screen, kills the tmux session and keeps the session directory as a tombstone
 * (capture, read and logs still answer); `purge` removes the tombstone too. Idempotent.
 */
export async function killWorker(deps: Deps, input: KillInput): Promise<KillResult> {
  try {
    return await killLoaded(deps, input);
  } catch (error) {
    // A worker umbel cannot read is removed as it is by --purge (operations/worker/broken.ts); a plain kill
    // keeps its typed error, which says how to fix it.
    if (input.purge && isWorkerFault(error)) return purgeBroken(deps, input.name, error);
    throw error;
  }
}

async function killLoaded(deps: Deps, input: KillInput): Promise<KillResult> {
  const worker = await loadWorker(deps, input.name);
  const { name } = worker.meta;
  const live = await checkLiveness(deps, worker);
  const unrecorded: Unrecorded[] = [];
  if (worker.meta.state !== "killed") {
    // A purge removes the tombstone the screen would go to: no capture (every -p turn ends here).
    const screen = input.purge
      ? null
      : live.alive
        ? await deps.tmux.capture(name).catch(() => null)
        : await deadPaneScreen(deps, name, 0);
    // The kill comes before any write: on a full disk, writing last-screen.txt first failed the kill
    // and left the worker running. What it records after is the tombstone's, best-effort.
    await deps.tmux.killSession(name);
    if (screen !== null)
      await recordOrNote(unrecorded, "last-screen.txt", () => deps.store.writeLastScreen(name, screen));
    // The worker's own files in its provider's home (codex: its profile; gemini: the credential links).
    await deps.home.remove(worker.meta.providerFiles ?? []);
    await recordOrNote(unrecorded, "meta.json", () =>
      deps.store.writeMeta({
        ...worker.meta,
        state: "killed",
        killedAt: new Date(deps.clock.now()).toISOString(),
      }),
    );
  }
  const noted = unrecorded.length > 0 ? { unrecorded } : {};
  // spawn --worktree: what holds no work is removed; what does is kept and named (every kill looks again).
  const tree = worker.meta.worktree;
  const worktree = tree ? { worktree: await releaseWorktree(deps, tree, input.force === true) } : {};
  if (input.purge) {
    // A --notify command still running (a hook started it detached, deaf to the pane's end) would
    // write into a folder that is gone: its process group goes with the worker.
    await deps.store.stopNotifies(name);
    await deps.store.remove(name);
    // A claimed spare's old name is a link to this directory (pool-claim.ts): it goes with it.
    const alias = worker.meta.pool?.alias;
    if (alias && alias !== name) await deps.store.remove(alias);
    // The tombstone is gone: what it could not record does not matter.
    return { name, state: "purged", wasAlive: live.alive, ...worktree };
  }
  return { name, state: "killed", wasAlive: live.alive, ...worktree, ...noted };
}

type Unrecorded = NonNullable<KillResult["unrecorded"]>[number];

/** A write of the tombstone's: a file fault (ENOSPC, EROFS …) is noted in the result, anything else thrown. */
async function recordOrNote(
  unrecorded: Unrecorded[],
  file: string,
  write: () => Promise<void>,
): Promise<void> {
  try {
    await write();
  } catch (error) {
    if (!(error instanceof FileAccessError)) throw error;
    unrecorded.push({ file, error: error.message });
  }
}

/** A directory without meta.json older than this is a spawn that died half-way (umbel was killed). */
const ORPHAN_AGE_MS = 10 * 60_000;

/**
 * Removes dead and killed workers; never a live one. Every worker is read, and its liveness settled,
 * before anything is removed. A broken worker (its state unreadable: operations/worker/broken.ts) is removed
 * only when no live tmux session has its name — a meta.json that does not parse, or an exit record
 * a live pane contradicts, never makes prune kill a working CLI on its word.
 */
export async function pruneWorkers(deps: Deps): Promise<PruneResult> {
  const removed: string[] = [];
  const kept: string[] = [];
  const broken: NonNullable<PruneResult["broken"]> = [];
  const worktrees: NonNullable<PruneResult["worktrees"]> = [];
  const found: ({ worker: Worker; live: Liveness } | { name: string; fault: StateError } | string)[] = [];
  for (const name of await deps.store.listNames()) {
    try {
      const worker = await loadWorker(deps, name);
      found.push({ worker, live: await checkLiveness(deps, worker) });
    } catch (error) {
      if (error instanceof WorkerIncompleteError) found.push(name);
      else if (error instanceof WorkerNotFoundError)
        continue; // removed since it was listed
      else if (isWorkerFault(error)) found.push({ name, fault: error });
      else throw error;
    }
  }
  for (const entry of found) {
    if (typeof entry === "string") {
      if (await isOrphan(deps, entry)) {
        await deps.store.remove(entry);
        removed.push(entry);
      } else kept.push(entry);
      continue;
    }
    if ("fault" in entry) {
      const pane = await deps.tmux.paneInfo(entry.name);
      const alive = pane !== null && !pane.dead;
      if (!alive) await purgeBroken(deps, entry.name, entry.fault);
      (alive ? kept : removed).push(entry.name);
      broken.push({ name: entry.name, ...brokenOf(deps, entry.name, entry.fault), removed: !alive });
      continue;
    }
    const { name } = entry.worker.meta;
    if (entry.live.alive) {
      kept.push(name);
      continue;
    }
    const killed = await killWorker(deps, { name, purge: true });
    if (killed.worktree) worktrees.push({ name, ...killed.worktree });
    removed.push(name);
  }
  return {
    removed,
    kept,
    ...(broken.length > 0 ? { broken } : {}),
    ...(worktrees.length > 0 ? { worktrees } : {}),
  };
}

/** A directory with no meta.json, older than ORPHAN_AGE_MS and with no tmux session. */
async function isOrphan(deps: Deps, name: string): Promise<boolean> {
  const changedAt = await deps.store.dirChangedAt(name);
  if (changedAt === null || deps.clock.now() - changedAt <= ORPHAN_AGE_MS) return false;
  return !(await deps.tmux.hasSession(name));
}
