import { headlineOfAll, type WaitManyInput, type WaitResult, workersOf } from "../../core/fleet/wait-many.ts";
import type { Deps } from "../../core/ports.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { type GuardProgress, waitGuarded } from "../guard/guard.ts";
import { withTurnTelemetry } from "../limits/telemetry.ts";
import { turnBaseline } from "../wait/wait.ts";
import { viewWorker, type WorkerView } from "../worker/view.ts";
import { loadWorker } from "../worker/worker.ts";
import { drainQueue } from "./queue.ts";

/**
 * `wait NAME`, or `wait --any/--all A B C`: one wait state machine per worker in this one process,
 * each on its own fs.watch of that worker's events (no polling beyond each machine's safety net).
 * any returns at the first outcome and stops the other machines (their workers are untouched). Each
 * worker's turn is followed through its guardrails (operations/guard/guard.ts): a guarded turn's outcome is
 * its guard's (stop once the checks pass, rejected 121); a stopped machine leaves its guard open.
 */
export async function waitForTurns(
  deps: Deps,
  input: WaitManyInput,
  onProgress?: (progress: GuardProgress) => void,
): Promise<WaitResult> {
  const names = workersOf(input);
  const limits = {
    ...(input.timeout === undefined ? {} : { timeout: input.timeout }),
    ...(input.idleTimeout === undefined ? {} : { idleTimeout: input.idleTimeout }),
    ...(input.maxTokens === undefined ? {} : { maxTokens: input.maxTokens }),
  };
  const [first] = names;
  if (names.length === 1 && first !== undefined && !input.any && !input.all) {
    const view = await viewWorker(deps, first);
    const after = input.after === undefined ? {} : { after: input.after };
    return drainAfter(
      deps,
      view,
      await waitGuarded(deps, { name: first, ...limits, ...after }, onProgress, view),
    );
  }
  // Every worker must exist and have a turn before any machine starts: never a half-started wait.
  const views: WorkerView[] = [];
  for (const name of names) views.push(requireTurn(await viewWorker(deps, name)));
  const stop = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, stop.signal]) : stop.signal;
  const each = { ...deps, signal };
  const order: string[] = [];
  const waits = views.map((view) =>
    waitGuarded(each, { name: view.meta.name, ...limits }, onProgress, view).then((outcome) => {
      order.push(view.meta.name);
      if (input.any) stop.abort();
      return outcome;
    }),
  );
  // A failing machine (a state fault) fails the wait; the others are stopped first.
  const settled = await Promise.allSettled(waits);
  stop.abort();
  const failed = settled.find((s) => s.status === "rejected");
  if (failed?.status === "rejected") throw failed.reason;
  const outcomes = new Map<string, Outcome>();
  for (const [i, s] of settled.entries())
    if (s.status === "fulfilled") {
      const view = views[i];
      if (view) outcomes.set(view.meta.name, await drainAfter(deps, view, s.value));
    }
  return input.any ? firstOf(deps, outcomes, order) : allOf(outcomes, names);
}

/** The first turn to end; the machines this wait stopped are pending, never outcomes. */
function firstOf(deps: Deps, outcomes: Map<string, Outcome>, order: readonly string[]): WaitResult {
  const callerAborted = deps.signal?.aborted === true;
  const ended = order.flatMap((name) => {
    const outcome = outcomes.get(name);
    return outcome && (outcome.reason !== "aborted" || callerAborted) ? [outcome] : [];
  });
  const pending = order.filter((name) => !ended.some((o) => o.name === name));
  const [headline] = ended;
  if (!headline) throw new Error("wait --any ended with no outcome");
  return { ...headline, outcomes: ended, pending };
}

function allOf(outcomes: Map<string, Outcome>, names: readonly string[]): WaitResult {
  const each = names.flatMap((name) => outcomes.get(name) ?? []);
  const headline = headlineOfAll(each);
  if (!headline) throw new Error("wait --all ended with no outcome");
  return { ...headline, outcomes: each };
}

/**
 * The outcome with the turn's own telemetry (operations/limits/telemetry.ts), read before anything moves
 * the worker on. A turn that ended (stop, provider-error) leaves the worker idle: its next queued
 * prompt (send --queue) is sent now, and the outcome names it with its baseline.
 */
async function drainAfter(deps: Deps, view: WorkerView, waited: Outcome): Promise<Outcome> {
  const outcome = await withTurnTelemetry(deps, waited, view);
  if ((outcome.reason !== "stop" && outcome.reason !== "provider-error") || deps.signal?.aborted)
    return outcome;
  // The turn is over: the queue's next prompt goes to the worker as it is now (a kill or a takeover
  // may have come during the wait), so its meta.json is read again.
  const sent = await drainQueue(deps, await loadWorker(deps, outcome.name));
  return sent ? { ...outcome, next: sent } : outcome;
}

/** The worker has been sent a prompt (else NoTurnError, exit 5, as `wait NAME` says). */
function requireTurn(view: WorkerView): WorkerView {
  turnBaseline(view);
  return view;
}
