import { StateError, WorkerDeadError } from "../../core/errors.ts";
import {
  findGuard,
  type GuardPhase,
  type GuardRecord,
  guardOfSubmit,
  structuredOf,
} from "../../core/guard/record.ts";
import { guardMove, lockedMove } from "../../core/guard/step.ts";
import type { Deps } from "../../core/ports.ts";
import type { OutcomeReason, WaitInput } from "../../core/schemas.ts";
import {
  type ExitRecord,
  OUTCOME_EXIT,
  type Outcome,
  type OutcomeEvidence,
} from "../../core/wait/outcome.ts";
import { DEFAULT_WAIT_TIMEOUT_MS, turnBaseline, type WaitProgress, waitForTurn } from "../wait/wait.ts";
import { readAnswer } from "../worker/read.ts";
import { deliverTurn } from "../worker/send.ts";
import { viewWorker, type WorkerView } from "../worker/view.ts";
import type { Worker } from "../worker/worker.ts";
import { checkStep } from "./check.ts";
import { sendFeedback, type TurnRunner, watchTurn } from "./turn.ts";

export type GuardProgress = WaitProgress & {
  readonly attempt?: number;
  readonly maxAttempts?: number;
  readonly phase?: GuardPhase;
};

/** The caller's signal and umbel's own halt, as one. */
function withHalt(deps: Deps, halt: AbortSignal): Deps {
  return { ...deps, signal: deps.signal ? AbortSignal.any([deps.signal, halt]) : halt };
}

/** While another process checks the turn, this one looks again this often. */
const FOLLOW_POLL_MS = 250;

/**
 * `wait`: the turn's outcome, through its guardrails when it has any (sent with --json-schema or
 * --accept): each attempt's turn is waited for, checked, and answered with feedback until the checks
 * pass (stop), the attempts run out (rejected, 121), or the turn ends otherwise (that outcome; the
 * guard stays open, so a later wait goes on from there). There is no daemon: whichever process waits
 * runs the checks, under a lock in the worker's state dir, so two waiters run each check once.
 */
export async function waitGuarded(
  deps: Deps,
  input: WaitInput,
  onProgress?: (p: GuardProgress) => void,
  /** The worker as the verb looked at it (once), else looked at here. */
  loaded?: WorkerView,
): Promise<Outcome> {
  const view = loaded ?? (await viewWorker(deps, input.name));
  const worker: Worker = { meta: view.meta, provider: view.provider };
  const baseline = input.after ?? turnBaseline(view);
  const records = await deps.guards.list(worker.meta.name);
  const guard =
    records.length === 0
      ? null
      : input.after !== undefined
        ? findGuard(records, baseline)
        : (guardOfSubmit(records, worker.provider, view.events, baseline)?.guard ?? null);
  if (!guard) return waitForTurn(deps, { ...input, after: baseline }, onProgress, { worker });
  const runner: TurnRunner = {
    wait: (turn, d, { timeoutMs, onProgress: progress, halt }) =>
      waitForTurn(
        withHalt(d, halt),
        {
          name: input.name,
          after: turn,
          timeout: timeoutMs,
          idleTimeout: input.idleTimeout,
          maxTokens: input.maxTokens,
        },
        progress,
      ),
    send: (text, prepare) => deliverTurn(deps, worker, text, prepare, "turn-loop"),
  };
  return runGuard(deps, worker, guard.baseline, input.timeout ?? DEFAULT_WAIT_TIMEOUT_MS, runner, onProgress);
}

export async function runGuard(
  deps: Deps,
  worker: Worker,
  guardBaseline: number,
  timeoutMs: number,
  runner: TurnRunner,
  onProgress?: (p: GuardProgress) => void,
): Promise<Outcome> {
  const { name } = worker.meta;
  const started = deps.clock.now();
  const deadline = started + timeoutMs;
  const read = () => readGuard(deps, name, guardBaseline);
  const end = (reason: OutcomeReason, record: GuardRecord, evidence: OutcomeEvidence = {}): Outcome => ({
    reason,
    exitCode: OUTCOME_EXIT[reason],
    name,
    baseline: record.baseline,
    elapsedMs: deps.clock.now() - started,
    evidence: { ...evidence, attempts: record.attempts },
  });
  let waited: number | null = null;
  for (;;) {
    let record = await read();
    const report = (p: WaitProgress) =>
      onProgress?.({
        ...p,
        elapsedMs: deps.clock.now() - started,
        attempt: record.turns.length,
        maxAttempts: record.maxAttempts,
        phase: record.phase,
      });
    // The turn has stopped; the phase says what umbel does now (elapsed is set by report).
    const note = () => report({ elapsedMs: 0, turn: "stop" });
    const move = guardMove(record, waited);
    if (move.kind === "finish") return end(...(await finalOf(deps, worker, record)));
    if (move.kind === "watch") {
      const outcome = await watchTurn(deps, worker, record, runner, deadline, report);
      if (outcome) return end(outcome.reason, record, outcome.evidence);
      waited = move.turn;
    }
    const lock = await deps.store.lock(name, `guard-${guardBaseline}`);
    if (!lock) {
      note();
      await deps.clock.sleep(FOLLOW_POLL_MS, deps.signal);
      if (deps.signal?.aborted) return end("aborted", record);
      if (deps.clock.now() >= deadline) return end("timeout", record, { timeoutMs });
      continue;
    }
    try {
      record = await read();
      const locked = lockedMove(record, waited);
      if (locked.kind === "again") continue;
      if (locked.kind === "check") {
        // A waiter that died mid-check (kill -9) left its check running: end it before this attempt's
        // check runs again (two at once wrote one log, and the verdict was whichever came last).
        if (record.running) await deps.checks.end(record.running);
        const { running: _running, ...unchecked } = record;
        record = { ...unchecked, phase: "checking" };
        await deps.guards.write(name, record);
        note();
        const checked = await checkStep(deps, worker, record, deadline);
        if ("cut" in checked)
          return checked.cut === "aborted" ? end("aborted", record) : end("timeout", record, { timeoutMs });
        record = checked.record;
        if (record.phase === "done") return end(...(await finalOf(deps, worker, record)));
      }
      note();
      try {
        await sendFeedback(deps, worker, record, runner);
      } catch (error) {
        // The worker died after its turn: that is the loop's outcome (a later wait tries again).
        if (!(error instanceof WorkerDeadError)) throw error;
        return end("dead", record, { exit: (error.data.exit as ExitRecord | null | undefined) ?? null });
      }
    } finally {
      await lock.release();
    }
  }
}

/** How a finished guard reads: stop with the last turn's answer (and object), or rejected. */
async function finalOf(
  deps: Deps,
  worker: Worker,
  record: GuardRecord,
): Promise<[OutcomeReason, GuardRecord, OutcomeEvidence]> {
  const last = record.attempts.at(-1);
  if (record.final?.reason !== "stop") {
    const errors = last?.structured?.errors ?? [];
    const detail = record.final?.detail ?? "the guardrails did not hold";
    return ["rejected", record, { detail, ...(errors.length > 0 ? { errors } : {}) }];
  }
  const turn = record.turns.at(-1) ?? record.baseline;
  const answer = await readAnswer(deps, { name: worker.meta.name, after: turn });
  const evidence: OutcomeEvidence = { promptId: answer.promptId, message: answer.text };
  if (record.jsonSchema)
    evidence.structured = structuredOf(await deps.guards.readStructured(worker.meta.name), turn).object;
  return ["stop", record, evidence];
}

async function readGuard(deps: Deps, name: string, baseline: number): Promise<GuardRecord> {
  const record = (await deps.guards.list(name)).find((r) => r.baseline === baseline);
  if (!record)
    throw new StateError(`worker ${name}: the guardrails of the turn at baseline ${baseline} are gone`, {
      name,
      baseline,
    });
  return record;
}
