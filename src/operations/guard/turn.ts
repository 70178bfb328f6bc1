import { MAX_INVALID_CALLS } from "../../core/guard/decide.ts";
import { type GuardRecord, structuredOf } from "../../core/guard/record.ts";
import type { Deps } from "../../core/ports.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import type { SendResult } from "../../core/worker/outputs.ts";
import { type WaitProgress, waitForTurn } from "../wait/wait.ts";
import type { PrepareTurn } from "../worker/send.ts";
import type { Worker } from "../worker/worker.ts";
import { recordTurnSchema } from "./plan.ts";
import { turnStructured } from "./turn-structured.ts";

/** What the guard loop does with a worker's turns: follow one to its end, and send the next. */

/** How a waiter follows one turn and sends the next (`-p` follows its transcript as it goes). */
export type TurnRunner = {
  /** `halt` fires when umbel ends the turn itself (too many invalid StructuredOutput calls). */
  wait(turn: number, deps: Deps, options: TurnWaitOptions): Promise<Outcome>;
  send(text: string, prepare: PrepareTurn): Promise<SendResult>;
};

export type TurnWaitOptions = {
  readonly timeoutMs: number;
  readonly onProgress: (p: WaitProgress) => void;
  readonly halt: AbortSignal;
};

/**
 * Waits for the attempt's turn to stop: null when it did, else its outcome. With a schema, it also
 * counts the StructuredOutput calls as they come: claude -p ends a request after 5 invalid ones, so
 * umbel interrupts the worker then (the check step reports it as rejected).
 */
export async function watchTurn(
  deps: Deps,
  worker: Worker,
  record: GuardRecord,
  runner: TurnRunner,
  deadline: number,
  report: (p: WaitProgress) => void,
): Promise<Outcome | null> {
  const turn = record.turns.at(-1) ?? record.baseline;
  const halt = new AbortController();
  let counting: Promise<void> | null = null;
  const count = async () => {
    // The server's own records first (one read, as each call lands); the calls the CLI refused
    // itself (the transcript, turn-structured.ts) only while those are not yet enough.
    let s = structuredOf(await deps.guards.readStructured(worker.meta.name), turn);
    if (s.rejected < MAX_INVALID_CALLS) s = structuredOf(await turnStructured(deps, worker, turn), turn);
    if (s.rejected < MAX_INVALID_CALLS || halt.signal.aborted) return;
    halt.abort();
    const keys = worker.provider.interruptKeys ?? ["Escape"];
    for (const key of keys) await deps.tmux.sendKeys(worker.meta.name, [key]).catch(() => undefined);
  };
  // A wake while a count is running asks for one more once it ends: the fifth call is never missed.
  let again = false;
  const recount = async () => {
    do {
      again = false;
      await count().catch(() => undefined);
    } while (again && !halt.signal.aborted);
    counting = null;
  };
  const progress = (p: WaitProgress) => {
    report(p);
    // Each wake of the wait (a StructuredOutput call writes into events/ and wakes it) counts again.
    if (!record.jsonSchema) return;
    if (counting === null) counting = recount();
    else again = true;
  };
  const outcome = await runner.wait(turn, deps, {
    timeoutMs: Math.max(0, deadline - deps.clock.now()),
    onProgress: progress,
    halt: halt.signal,
  });
  await counting;
  if (outcome.reason === "stop") return null;
  if (outcome.reason !== "aborted" || !halt.signal.aborted || deps.signal?.aborted) return outcome;
  // umbel halted the turn: its own end follows the interrupt. Waiting for it (whichever runner
  // followed the turn) keeps the worker from being reported done while it is still busy.
  const left = Math.min(SETTLE_MS, deadline - deps.clock.now());
  if (left > 0)
    await waitForTurn(deps, { name: worker.meta.name, after: turn, timeout: left }).catch(() => undefined);
  return null;
}

/**
 * How long a halted turn may take to end after umbel's interrupt (claude cancels the held
 * StructuredOutput call at once; the held answer goes after 5 s anyway: structured-call.ts).
 */
const SETTLE_MS = 15_000;

/** The next attempt's prompt: its baseline joins the record (and the turn schema) before it is typed. */
export async function sendFeedback(
  deps: Deps,
  worker: Worker,
  record: GuardRecord,
  runner: TurnRunner,
): Promise<void> {
  const { name } = worker.meta;
  const text = record.attempts.at(-1)?.feedback ?? "";
  await runner.send(text, async (baseline) => {
    const undoSchema = await recordTurnSchema(deps, worker, baseline, record.jsonSchema ?? null);
    await deps.guards.write(name, { ...record, turns: [...record.turns, baseline], phase: "turn" });
    return async () => {
      await deps.guards.write(name, record);
      await undoSchema();
    };
  });
}
