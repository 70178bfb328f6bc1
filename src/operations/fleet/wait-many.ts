import { AbortedError } from "../../core/errors.ts";
import { headlineOfAll, type WaitManyInput, type WaitResult, workersOf } from "../../core/fleet/wait-many.ts";
import type { HostPlan } from "../../core/hosts/plan.ts";
import { parseWorkerRef } from "../../core/hosts/schema.ts";
import type { Deps } from "../../core/ports.ts";
import { OUTCOME_EXIT, type Outcome } from "../../core/wait/outcome.ts";
import { type GuardProgress, waitGuarded } from "../guard/guard.ts";
import { planWaitHosts, type RemoteWait, waitOnHost } from "../hosts/wait.ts";
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
  // The hosts of any HOST:NAME, from one read of config.toml (none named: none read).
  const hosts = await planWaitHosts(deps, names);
  const [first] = names;
  if (names.length === 1 && first !== undefined && !input.any && !input.all) {
    const remote = remoteOf(hosts, first);
    if (remote) return waitOnHost(deps, { ...remote, ...limits, after: input.after }, onProgress);
    const view = await viewWorker(deps, first);
    const after = input.after === undefined ? {} : { after: input.after };
    return drainAfter(
      deps,
      view,
      await waitGuarded(deps, { name: first, ...limits, ...after }, onProgress, view),
    );
  }
  // Every local worker must exist and have a turn before any machine starts: never a half-started
  // wait (a host's worker is checked by its own remote wait, which fails this one as a local fault does).
  const views = new Map<string, WorkerView>();
  for (const name of names)
    if (!remoteOf(hosts, name)) views.set(name, requireTurn(await viewWorker(deps, name)));
  const stop = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, stop.signal]) : stop.signal;
  const each = { ...deps, signal };
  const order: string[] = [];
  const waits = names.map((name) => {
    const view = views.get(name);
    const remote = remoteOf(hosts, name);
    const machine = view
      ? waitGuarded(each, { name, ...limits }, onProgress, view)
      : waitStoppable(each, { ...(remote as RemoteRef), ...limits }, name, onProgress);
    return machine.then(
      (outcome) => {
        order.push(name);
        if (input.any) stop.abort();
        return outcome;
      },
      (error: unknown) => {
        // The wait fails: the others are stopped now, not left to run to their own ends.
        stop.abort();
        throw error;
      },
    );
  });
  // A failing machine (a state fault, a host gone past the timeout) fails the wait; the others are stopped first.
  const settled = await Promise.allSettled(waits);
  stop.abort();
  const failed = settled.find((s) => s.status === "rejected");
  if (failed?.status === "rejected") throw failed.reason;
  const outcomes = new Map<string, Outcome>();
  for (const [i, s] of settled.entries()) {
    const name = names[i];
    if (s.status !== "fulfilled" || name === undefined) continue;
    const view = views.get(name);
    // A host's outcome comes drained by its own wait (its queue is the host's).
    outcomes.set(name, view ? await drainAfter(deps, view, s.value) : s.value);
  }
  return input.any ? firstOf(deps, outcomes, order) : allOf(outcomes, names);
}

type RemoteRef = { plan: HostPlan; name: string };

/** A HOST:NAME's host and its name there; null for a local name. */
function remoteOf(hosts: ReadonlyMap<string, HostPlan>, given: string): RemoteRef | null {
  const ref = parseWorkerRef(given);
  const plan = ref.host === null ? undefined : hosts.get(ref.host);
  return plan ? { plan, name: ref.name } : null;
}

/**
 * A host's machine among several: stopped (any has its first outcome, or a Ctrl-C) it is an aborted
 * outcome as a local machine's is, never a failure; its ssh's end told the remote wait to end.
 */
async function waitStoppable(
  deps: Deps,
  wait: RemoteWait,
  name: string,
  onProgress?: (progress: GuardProgress) => void,
): Promise<Outcome> {
  const started = deps.clock.now();
  try {
    return await waitOnHost(deps, wait, onProgress);
  } catch (error) {
    if (!(error instanceof AbortedError)) throw error;
    return {
      name,
      reason: "aborted",
      exitCode: OUTCOME_EXIT.aborted,
      // The remote turn's baseline never came back: the one asked for (none: 0).
      baseline: wait.after ?? 0,
      elapsedMs: deps.clock.now() - started,
      evidence: { detail: "the wait on the host was stopped; its worker runs on" },
    };
  }
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
