import { StateError, StateRootError, WorkerIncompleteError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import type { BrokenWorker } from "../../core/worker/broken.ts";
import type { KillResult } from "../../core/worker/outputs.ts";
import type { StatusResult } from "../../core/worker/status.ts";

/**
 * A worker whose own state umbel cannot read (an inconsistent or unreadable meta.json, a corrupt
 * queue.json, an exit record its live pane contradicts, a file it cannot open) is broken: the fleet
 * view lists it beside the others instead of failing for everyone (issue 22: one such worker made
 * `ls` exit 1), `status NAME` gives the typed error, and `kill NAME --purge` or `prune` clears it.
 * A state root umbel cannot use, or a tmux that does not answer, is nobody's worker: those still fail.
 */
export function isWorkerFault(error: unknown): error is StateError {
  return (
    error instanceof StateError &&
    !(error instanceof StateRootError) &&
    !(error instanceof WorkerIncompleteError)
  );
}

/** The file, the reason and the fix of a broken worker, from the error that says so. */
export function brokenOf(deps: Deps, name: string, error: StateError): BrokenWorker {
  const text = (key: string) => (typeof error.data[key] === "string" ? (error.data[key] as string) : null);
  const own = text("fix") ?? text("hint");
  const purge = `umbel kill ${name} --purge removes the worker and its tmux session (umbel prune does once that session is gone)`;
  return {
    file: text("path") ?? deps.store.paths(name).dir,
    reason: error.message,
    fix: own ? `${own}; or ${purge}` : purge,
  };
}

/** `ls`'s row for a broken worker: what its meta.json still says, if it says anything. */
export async function brokenRow(deps: Deps, name: string, error: StateError): Promise<StatusResult> {
  const meta = await deps.store.readMeta(name).catch(() => null);
  return {
    name,
    provider: meta?.provider ?? "unknown",
    state: "broken",
    cwd: meta?.cwd ?? "",
    createdAt: meta?.createdAt ?? "",
    sessionId: meta?.sessionId ?? null,
    model: meta?.model ?? null,
    pid: null,
    exit: null,
    reason: null,
    prompt: null,
    events: 0,
    guard: null,
    broken: brokenOf(deps, name, error),
  };
}

/**
 * Removes a broken worker as it is: the tmux session of its name (on this root's socket: a worker's
 * session is named by its folder, never by what a broken meta.json says), the links a takeover left
 * to it, and its folder. Its meta.json is not trusted for anything else (provider files, worktree).
 */
export async function purgeBroken(deps: Deps, name: string, error: StateError): Promise<KillResult> {
  const pane = await deps.tmux.paneInfo(name);
  if (pane !== null) await deps.tmux.killSession(name);
  await deps.store.stopNotifies(name);
  await deps.store.removeAliases(name);
  await deps.store.remove(name);
  return {
    name,
    state: "purged",
    wasAlive: pane !== null && !pane.dead,
    broken: brokenOf(deps, name, error),
  };
}
