import type { FailoverMove } from "../accounts/failover.ts";
import { MAX_INVALID_CALLS } from "../guard/decide.ts";
import type { Attempt } from "../guard/record.ts";
import type { UsageLimit } from "../limits/limits.ts";
import type { TurnSummary } from "../providers/transcript-types.ts";
import type { OutcomeReason } from "../schemas.ts";
import type { Outcome, OutcomeEvidence } from "../wait/outcome.ts";
import type { DialogAnswer } from "../worker/outputs.ts";
import { describeFailure } from "./print.ts";

/**
 * claude -p's result object (2.1.332), filled from umbel's outcome and the turn's transcript.
 * The key set depends on how the turn ended, exactly as claude -p's does; values umbel cannot know
 * from the interactive TUI (fast mode, subagent and safety stats, stream timings; cost where the
 * provider records none) are null.
 */
export type PrintEnding =
  /** With --json-schema, `structured` is the object and `text` its JSON text (claude's `result`). */
  | { kind: "success"; text: string; structured?: unknown }
  /** claude -p reports an API error as subtype "success" with is_error true, the error as result. */
  | { kind: "api-error"; text: string }
  | { kind: "max-turns"; maxTurns: number }
  /** claude -p's error_max_structured_output_retries: five invalid StructuredOutput calls. */
  | { kind: "structured-retries"; message: string }
  /** A budget umbel stopped the turn at: -p --max-budget-usd (claude's) or --max-tokens (umbel's). */
  | { kind: "budget"; unit: "usd" | "tokens"; limit: number }
  /** A umbel outcome claude -p has no equivalent for (input, timeout, idle, dead, aborted). */
  | { kind: "failure"; reason: Exclude<OutcomeReason, "stop">; message: string };

type UmbelExtras = {
  worker: string;
  provider: string;
  outcome: OutcomeReason | "max-turns";
  exitCode: number;
  evidence?: OutcomeEvidence;
  /** The guardrails' attempts (--json-schema, --accept), each with its checks. */
  attempts?: Attempt[];
  /** A usage limit (limited): its window and reset time, also in evidence. */
  limit?: UsageLimit;
  /** --on-limit failover: each move to another account during the run's turn, also in evidence. */
  failover?: FailoverMove[];
  /** The startup dialogs umbel answered for the run's new worker. */
  dialogs?: DialogAnswer[];
};

export type ResultArgs = {
  ending: PrintEnding;
  summary: TurnSummary | null;
  sessionId: string | null;
  durationMs: number;
  uuid: string;
  resultIndex: number;
  /** stream-json adds model_usage_since_last_result (this turn); modelUsage is the run's total. */
  stream: boolean;
  runModelUsage: Record<string, Record<string, unknown>>;
  /** The run's cost as the provider records it (claude's statusline), or null where none is. */
  costUsd: number | null;
  umbel: UmbelExtras;
};

/**
 * The turn's ending from umbel's outcome (and whether --max-turns halted it, or a budget was spent:
 * claude -p reports a spent --max-budget-usd even when the turn that spent it ended by itself). A
 * guarded prompt ends as claude -p's does where claude has the guard: the object as the result; five
 * invalid calls as error_max_structured_output_retries; no call even after its one enforce message,
 * the text answer as a success. A failed accept check (umbel's own guard) is a failure, `rejected`.
 */
export function decideEnding(
  outcome: Outcome,
  text: string,
  maxTurnsHit: number | null,
  budgetSpent: Omit<Extract<PrintEnding, { kind: "budget" }>, "kind"> | null = null,
): PrintEnding {
  if (maxTurnsHit !== null) return { kind: "max-turns", maxTurns: maxTurnsHit };
  const e = outcome.evidence;
  if (outcome.reason === "limited" && e.budget)
    return { kind: "budget", unit: e.budget.unit, limit: e.budget.limit };
  if (budgetSpent !== null && (outcome.reason === "stop" || outcome.reason === "limited"))
    return { kind: "budget", ...budgetSpent };
  if (outcome.reason === "stop")
    return e.structured === undefined
      ? { kind: "success", text }
      : { kind: "success", text: JSON.stringify(e.structured), structured: e.structured };
  const s = e.attempts?.at(-1)?.structured;
  if (outcome.reason === "rejected" && s && !s.ok) {
    if (s.rejected >= MAX_INVALID_CALLS) return { kind: "structured-retries", message: e.detail ?? "" };
    return { kind: "success", text };
  }
  // A usage limit is claude -p's API error (429 usage_limit_reached): exit 1, the limit's text.
  if (outcome.reason === "limited") return { kind: "api-error", text: describeFailure(outcome, text) };
  if (outcome.reason === "provider-error") return { kind: "api-error", text: describeFailure(outcome, text) };
  return { kind: "failure", reason: outcome.reason, message: describeFailure(outcome, text) };
}

/**
 * The run's cost after a turn (`total_cost_usd`, what --max-budget-usd counts): the session's cost
 * as the provider recorded it at the turn's end less the cost when the run began. A turn that used
 * no tokens (an API error, a limit) cost nothing, whatever else the CLI spent: the run's cost stays.
 */
export function runCostAfter(
  previous: number | null,
  turnCostUsd: number | null,
  baseUsd: number | null,
  usedTokens: boolean,
): number | null {
  return turnCostUsd !== null && usedTokens ? Math.max(0, turnCostUsd - (baseUsd ?? 0)) : previous;
}

/**
 * --max-budget-usd spent by the run's cost once the turn is over: claude -p ends such a run as
 * error_max_budget_usd even when the turn ended by itself first. (The wait stops a turn that is still
 * running once the cost crosses the budget; this is the settled cost after one that ended.)
 */
export function budgetSpentBy(
  maxBudgetUsd: number | undefined,
  costUsd: number | null,
): { unit: "usd"; limit: number } | null {
  return maxBudgetUsd !== undefined && costUsd !== null && costUsd >= maxBudgetUsd
    ? { unit: "usd", limit: maxBudgetUsd }
    : null;
}

/** claude -p exits 1 for an API error and for max turns; umbel's own outcomes keep their codes. */
export function endingExitCode(ending: PrintEnding, outcome: Outcome): number {
  if (ending.kind === "success") return 0;
  if (
    ending.kind === "api-error" ||
    ending.kind === "max-turns" ||
    ending.kind === "structured-retries" ||
    ending.kind === "budget"
  )
    return 1;
  return outcome.exitCode;
}

export function buildResult(a: ResultArgs): Record<string, unknown> {
  const s = a.summary;
  const e = a.ending;
  const isError = e.kind !== "success";
  const turns = Math.max(1, s?.assistantMessages ?? 0);
  const head = {
    duration_api_ms: s?.durationApiMs ?? null,
    stop_reason: s?.stopReason ?? null,
    session_id: a.sessionId ?? s?.sessionId ?? null,
    total_cost_usd: a.costUsd,
    usage: s?.usage ?? null,
    modelUsage: a.runModelUsage,
    permission_denials: s?.permissionDenials ?? [],
    terminal_reason: terminalReason(e),
    fast_mode_state: null,
    fast_mode_disabled_reason: null,
    subagent_stats: null,
    safety_stops: null,
    is_error: isError,
    // A run cut at a tool_use counts the turn it cut (claude -p 2.1.332: max turns N → N+1; five
    // invalid StructuredOutput calls in five requests → 6).
    num_turns: e.kind === "max-turns" ? e.maxTurns + 1 : e.kind === "structured-retries" ? turns + 1 : turns,
  };
  const tail = {
    type: "result",
    duration_ms: a.durationMs,
    uuid: a.uuid,
    queued_turn_count: 0,
    result_index: a.resultIndex,
    ...(a.stream ? { model_usage_since_last_result: s?.modelUsage ?? {} } : {}),
  };
  switch (e.kind) {
    case "success":
      return {
        ...head,
        // The result is the StructuredOutput call's (claude -p ends the turn on it: tool_use).
        ...(e.structured === undefined ? {} : { stop_reason: "tool_use" }),
        subtype: "success",
        api_error_status: null,
        result: e.text,
        ...(e.structured === undefined ? {} : { structured_output: e.structured }),
        ttft_ms: s?.ttftMs ?? null,
        ...tail,
        ttft_stream_ms: null,
        time_to_request_ms: s?.timeToRequestMs ?? null,
        first_content_frame_ms: null,
        umbel: a.umbel,
      };
    case "api-error": {
      // claude -p names a usage limit (and only a limit) in `api_error`, as its transcript does.
      const limit = a.umbel.outcome === "limited" || s?.apiError?.error === "usage_limit_reached";
      return {
        ...head,
        subtype: "success",
        api_error_status: s?.apiError?.status ?? (limit ? 429 : null),
        api_error_type: s?.apiError?.type ?? (limit ? "rate_limit_error" : null),
        ...(limit ? { api_error: "usage_limit_reached" } : {}),
        result: e.text,
        ...tail,
        umbel: a.umbel,
      };
    }
    case "budget":
      return {
        ...head,
        // claude -p 2.1.332 prints 0 here (measured), even after a full answer.
        duration_api_ms: head.duration_api_ms ?? 0,
        terminal_reason: "budget_exhausted",
        subtype: e.unit === "usd" ? "error_max_budget_usd" : "error_max_tokens",
        errors: [budgetError(e)],
        ...tail,
        umbel: a.umbel,
      };
    case "max-turns":
      return {
        ...head,
        subtype: "error_max_turns",
        errors: [maxTurnsError(e.maxTurns)],
        ...tail,
        umbel: a.umbel,
      };
    case "structured-retries":
      return {
        ...head,
        subtype: "error_max_structured_output_retries",
        errors: [e.message],
        ...tail,
        umbel: a.umbel,
      };
    case "failure":
      return { ...head, subtype: "error_during_execution", errors: [e.message], ...tail, umbel: a.umbel };
  }
}

/** The system/init line that opens each turn of stream-json, with the keys umbel can fill. */
export function buildInit(a: {
  cwd: string;
  sessionId: string | null;
  model: string | null;
  permissionMode: string;
  uuid: string;
}): Record<string, unknown> {
  return {
    type: "system",
    subtype: "init",
    cwd: a.cwd,
    session_id: a.sessionId,
    model: a.model,
    permissionMode: a.permissionMode,
    uuid: a.uuid,
  };
}

/** What claude -p prints on stdout for max turns in text mode (no trailing newline, as claude). */
export function maxTurnsText(maxTurns: number): string {
  return `Error: Reached max turns (${maxTurns})`;
}

/** claude -p's text-mode line for a spent --max-budget-usd (2.1.332), and umbel's for --max-tokens. */
export function budgetText(e: Extract<PrintEnding, { kind: "budget" }>): string {
  return e.unit === "usd"
    ? `Error: Exceeded USD budget (${e.limit})`
    : `Error: Exceeded token budget (${e.limit})`;
}

/** claude -p's `errors` entry: "Reached maximum budget ($1e-7)" (the number as JS prints it). */
export function budgetError(e: Extract<PrintEnding, { kind: "budget" }>): string {
  return e.unit === "usd" ? `Reached maximum budget ($${e.limit})` : `Reached maximum tokens (${e.limit})`;
}

/** Model usage summed key by key (numbers add; the rest keeps the later value). */
export function addModelUsage(
  total: Record<string, Record<string, unknown>>,
  turn: Readonly<Record<string, Readonly<Record<string, unknown>>>>,
): Record<string, Record<string, unknown>> {
  const out = { ...total };
  for (const [model, usage] of Object.entries(turn)) {
    const have = out[model] ?? {};
    const sum: Record<string, unknown> = { ...have };
    for (const [key, value] of Object.entries(usage)) {
      const prior = have[key];
      sum[key] = typeof value === "number" && typeof prior === "number" ? prior + value : value;
    }
    out[model] = sum;
  }
  return out;
}

function maxTurnsError(maxTurns: number): string {
  return `Reached maximum number of turns (${maxTurns})`;
}

function terminalReason(e: PrintEnding): string {
  if (e.kind === "success") return "completed";
  if (e.kind === "api-error") return "api_error";
  if (e.kind === "max-turns") return "max_turns";
  if (e.kind === "structured-retries") return "structured_output_retry_exhausted";
  if (e.kind === "budget") return "budget_exhausted";
  return e.reason;
}
