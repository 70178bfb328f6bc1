import { WorkerIncompleteError, WorkerNotFoundError } from "../../core/errors.ts";
import { inputIdOf } from "../../core/fleet/answer.ts";
import { countDecisions } from "../../core/fleet/policy/compile.ts";
import { publicEntries } from "../../core/fleet/queue.ts";
import { guardOfSubmit } from "../../core/guard/record.ts";
import { billingEnvOf, billingFromEnv } from "../../core/limits/billing.ts";
import type { Deps } from "../../core/ports.ts";
import type { HookEvent } from "../../core/providers/types.ts";
import type { WorkerState } from "../../core/schemas.ts";
import { findSessionId } from "../../core/wait/turn.ts";
import type { StatusResult } from "../../core/worker/status.ts";
import { readQueue } from "../fleet/queue-file.ts";
import { worktreeStatus } from "../fleet/worktree.ts";
import { telemetryOf } from "../limits/telemetry.ts";
import { brokenRow, isWorkerFault } from "./broken.ts";
import { lastTurn, viewWorker, type WorkerView } from "./view.ts";
import { checkLiveness, isTurnOnByHooks, type Worker } from "./worker.ts";

export async function statusOf(deps: Deps, name: string): Promise<StatusResult> {
  return describeWorker(deps, await viewWorker(deps, name));
}

export async function listWorkers(deps: Deps): Promise<StatusResult[]> {
  const names = await deps.store.listNames();
  const results = await Promise.all(
    names.map(async (name) => {
      try {
        return await statusOf(deps, name);
      } catch (error) {
        // Only a spawn in progress (no meta.json yet) or a worker removed since listing is absent.
        if (error instanceof WorkerIncompleteError || error instanceof WorkerNotFoundError) return null;
        // One worker's damaged state is its own row (broken), never everyone's failure; a hung tmux
        // or an unusable state root still fails ls, never reading as an empty fleet.
        if (isWorkerFault(error)) return brokenRow(deps, name, error);
        throw error;
      }
    }),
  );
  return results.filter((r): r is StatusResult => r !== null);
}

/** The status of a worker the verb has looked at already (`-p --name` reuses the view it took). */
export async function describeWorker(deps: Deps, worker: WorkerView): Promise<StatusResult> {
  const { meta, provider, events } = worker;
  const live = await checkLiveness(deps, worker);
  const base = {
    name: meta.name,
    provider: meta.provider,
    cwd: meta.cwd,
    createdAt: meta.createdAt,
    sessionId: findSessionId(provider, events) ?? meta.sessionId,
    model: meta.model ?? null,
    events: events.length,
    ...(meta.policy ? { policy: { ...meta.policy, ...countDecisions(events) } } : {}),
    ...(meta.worktree ? { worktree: await worktreeStatus(deps, meta.worktree) } : {}),
    guard: null,
    onLimit: meta.onLimit ?? ("stop" as const),
    account: meta.account ?? null,
    // Workers from before umbel recorded it: the names they were given decide.
    billing: meta.billing ?? billingFromEnv(billingEnvOf(provider), meta.envNames),
    telemetry: await telemetryOf(deps, worker, events),
  };
  if (!live.alive) {
    const gone: Partial<Record<typeof live.why, WorkerState>> = {
      killed: "killed",
      "spawner-gone": "failed",
      "owner-gone": "orphaned",
    };
    const state = gone[live.why] ?? "dead";
    return { ...base, state, pid: null, exit: live.exit, reason: live.why, prompt: null };
  }
  if (meta.state === "starting")
    return { ...base, state: "starting", pid: live.pid, exit: null, reason: null, prompt: null };
  const last = worker.lastSubmit;
  const turn = (await lastTurn(deps, worker)) ?? { status: "none" as const };
  let state: WorkerState =
    turn.status === "running" ? "busy" : turn.status === "input" ? "needs-input" : "idle";
  if (state !== "idle" && !(turn.status === "running" && turn.sawStop)) {
    // Escape, or a prompt denied with keys, ends a claude turn with no hook: trust the screen then,
    // once its idle composer held as long as wait asks (a TUI lags its hooks at a turn's start).
    const screen = await deps.tmux.capture(meta.name).catch(() => null);
    const kind = screen === null ? "unknown" : provider.classifyScreen(screen).kind;
    // codex streams with no busy marker: its composer does not mean the turn is over.
    const endsTurn = provider.screenShowsStreaming !== false || state !== "busy";
    if (kind === "ready" && endsTurn && !(await isTurnOnByHooks(deps, worker, events, last ?? 0, turn)))
      state = "idle";
    else if (kind === "input") state = "needs-input";
  }
  const queue = publicEntries(await readQueue(deps, meta.name));
  return {
    ...base,
    state,
    pid: live.pid,
    exit: null,
    reason: null,
    prompt: state === "needs-input" && turn.status === "input" ? turn.text : null,
    ...(state === "needs-input" ? { inputId: turn.status === "input" ? inputIdOf(turn) : null } : {}),
    ...(queue.length > 0 ? { queue } : {}),
    guard: last === null ? null : await openGuard(deps, worker, events, last),
  };
}

/** The guard of the last turn while it is being enforced (a finished one says nothing more). */
async function openGuard(
  deps: Deps,
  worker: Worker,
  events: readonly HookEvent[],
  submit: number,
): Promise<StatusResult["guard"]> {
  const records = await deps.guards.list(worker.meta.name);
  const guard = guardOfSubmit(records, worker.provider, events, submit)?.guard;
  if (!guard || guard.phase === "done") return null;
  return { attempt: guard.turns.length, maxAttempts: guard.maxAttempts, phase: guard.phase };
}
