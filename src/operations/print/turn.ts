import type { Attempt } from "../../core/guard/record.ts";
import type { Deps } from "../../core/ports.ts";
import type { StreamMessage, TurnSummary } from "../../core/providers/transcript-types.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { runGuard } from "../guard/guard.ts";
import type { TurnRunner } from "../guard/turn.ts";
import { costOfStatusLine, readStatusLine, settledCost } from "../limits/cost.ts";
import { telemetryOf } from "../limits/telemetry.ts";
import { DEFAULT_WAIT_TIMEOUT_MS, type WaitProgress } from "../wait/wait.ts";
import { readAnswer } from "../worker/read.ts";
import { deliverTurn, sendPrompt } from "../worker/send.ts";
import { loadWorker, readEvents, type Worker } from "../worker/worker.ts";
import {
  armEarly,
  type FollowInput,
  type FollowLimits,
  followTurn,
  markTranscript,
  type StatusLineAtEnd,
  type TranscriptMark,
} from "./follow.ts";

export type PrintTurnInput = FollowInput & {
  name: string;
  prompt: string;
  jsonSchema?: string | Record<string, unknown> | undefined;
  accept?: string[] | undefined;
  maxAttempts?: number | undefined;
  acceptTimeout?: number | undefined;
  /** A cost budget for the run: stop once the session's cost reaches base + max. */
  maxBudgetUsd?: number | undefined;
  /** The session's cost when the run began (the budget and total_cost_usd count from there). */
  costBaseUsd?: number | null | undefined;
  /** Read the cost after the turn (json output, a budget): the statusline may need a moment. */
  wantCost?: boolean | undefined;
  /** The worker as the face loaded it for the run (read once), else loaded here. */
  worker?: Worker | undefined;
  /**
   * A spare this -p claimed a moment ago: the claim's liveness look (under its lock) stands for the
   * first send's (one tmux call fewer). Feedback turns look again.
   */
  claimed?: boolean | undefined;
};

export type PrintTurn = {
  outcome: Outcome;
  /** --max-turns stopped the turn (the value), or null. */
  maxTurnsHit: number | null;
  /** Each followed turn's summary, in order (a guarded prompt has one per attempt). */
  summaries: TurnSummary[];
  /** The final answer (stop) or the error text (provider-error); "" otherwise. */
  text: string;
  sessionId: string | null;
  /** The guardrails' attempts (--json-schema, --accept), or null for a plain prompt. */
  attempts: Attempt[] | null;
  /** The session's cost after the turn (the provider's record), or null where it keeps none. */
  costUsd: number | null;
};

/**
 * One `umbel -p` prompt on a ready worker: send, then follow its turn to an outcome (followTurn).
 * With --json-schema or --accept the prompt's guardrails are enforced as `wait` does (runGuard):
 * each feedback prompt goes to `onFeedback` (stream-json prints it as the user message it is)
 * before its turn is followed like the first. A budget (--max-tokens, --max-budget-usd) holds for
 * every attempt's turn; a usage limit or a spent budget ends the guard loop `limited`.
 */
export async function runPrintTurn(
  deps: Deps,
  input: PrintTurnInput,
  onMessage: (message: StreamMessage) => void = () => {},
  /** Called once the prompt is taken, before any message (codex names its session only then). */
  onSent: () => Promise<void> = async () => {},
  onFeedback: (text: string) => void = () => {},
): Promise<PrintTurn> {
  const {
    name,
    prompt,
    jsonSchema,
    accept,
    maxAttempts,
    acceptTimeout,
    maxBudgetUsd,
    costBaseUsd,
    wantCost: wantCostInput,
    worker: _loaded,
    claimed,
    ...follow
  } = input;
  const worker = input.worker ?? (await loadWorker(deps, name));
  let mark: TranscriptMark = await markTranscript(deps, worker);
  const base =
    maxBudgetUsd === undefined
      ? null
      : (costBaseUsd ?? costOfStatusLine(worker.provider, await readStatusLine(deps, name)));
  const wantCost = wantCostInput === true || maxBudgetUsd !== undefined;
  const limits: FollowLimits = {
    ...follow,
    ...(maxBudgetUsd === undefined || base === null
      ? {}
      : { cost: { maxCostUsd: maxBudgetUsd, costBaseUsd: base } }),
    wantCost,
  };
  const early = await armEarly(deps, worker, follow.maxTurns);
  const sent = await sendPrompt(
    deps,
    { name, prompt, jsonSchema, accept, maxAttempts, acceptTimeout },
    worker,
    { knownAlive: claimed === true },
  ).catch(async (error: unknown) => {
    await early.undo().catch(() => undefined);
    throw error;
  });
  let preArmed = early.armed;
  await onSent();
  const summaries: TurnSummary[] = [];
  let maxTurnsHit: number | null = null;
  let atEnd: StatusLineAtEnd = { text: null, at: 0 };
  const followOne = async (
    d: Deps,
    turn: { baseline: number; promptId: string | null },
    turnLimits: FollowLimits,
    guard?: { onProgress: (p: WaitProgress) => void; halt: AbortSignal },
  ) => {
    const followed = await followTurn(d, worker, turn, mark, { ...turnLimits, preArmed }, onMessage, guard);
    preArmed = false;
    if (followed.summary) summaries.push(followed.summary);
    maxTurnsHit = followed.maxTurnsHit;
    if (followed.statusLine) atEnd = followed.statusLine;
    return followed.outcome;
  };
  const guarded = jsonSchema !== undefined || accept !== undefined;
  let outcome: Outcome;
  if (!guarded) {
    outcome = await followOne(deps, sent, limits);
  } else {
    let next = { baseline: sent.baseline, promptId: sent.promptId };
    const runner: TurnRunner = {
      // Each attempt's turn within what is left of the prompt's timeout.
      wait: (turn, d, { timeoutMs, onProgress, halt }) =>
        followOne(
          d,
          turn === next.baseline ? next : { baseline: turn, promptId: null },
          { ...limits, timeout: timeoutMs },
          { onProgress, halt },
        ),
      send: async (text, prepare) => {
        mark = await markTranscript(deps, worker);
        onFeedback(text);
        const fed = await deliverTurn(deps, worker, text, prepare, "turn-loop");
        next = { baseline: fed.baseline, promptId: fed.promptId };
        return fed;
      },
    };
    outcome = await runGuard(deps, worker, sent.baseline, follow.timeout ?? DEFAULT_WAIT_TIMEOUT_MS, runner);
  }
  // A guarded prompt's baseline reads its latest attempt.
  const answer =
    maxTurnsHit === null && ["stop", "provider-error", "rejected"].includes(outcome.reason)
      ? await readAnswer(deps, { name, after: sent.baseline }, worker)
      : null;
  const costUsd = wantCost ? await settledCost(deps, worker.provider, name, atEnd) : null;
  // -p reports no telemetry of its own, but its account's record takes the windows the turn left.
  await telemetryOf(deps, worker, await readEvents(deps, worker.provider, name));
  return {
    outcome,
    maxTurnsHit,
    summaries,
    text: answer?.text ?? "",
    sessionId: answer?.sessionId ?? summaries.at(-1)?.sessionId ?? null,
    attempts: guarded ? (outcome.evidence.attempts ?? []) : null,
    costUsd,
  };
}
