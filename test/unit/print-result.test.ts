import { describe, expect, test } from "bun:test";
import type { Outcome } from "../../src/core/outcome.ts";
import {
  addModelUsage,
  buildResult,
  decideEnding,
  endingExitCode,
  type PrintEnding,
} from "../../src/core/print-result.ts";
import type { TurnSummary } from "../../src/core/providers/transcript-types.ts";

const outcome = (
  reason: Outcome["reason"],
  exitCode: number,
  evidence: Outcome["evidence"] = {},
): Outcome => ({
  reason,
  exitCode,
  name: "w",
  baseline: 0,
  elapsedMs: 5,
  evidence,
});

const summary: TurnSummary = {
  assistantMessages: 2,
  usage: { input_tokens: 10, output_tokens: 2 },
  modelUsage: { m: { inputTokens: 10, outputTokens: 2 } },
  stopReason: "end_turn",
  durationApiMs: 40,
  ttftMs: 30,
  timeToRequestMs: 20,
  apiError: null,
  permissionDenials: [],
  complete: true,
  toolsPending: 0,
  sessionId: "s",
};

/** The keys claude -p 2.1.332 printed for each ending (json; stream-json adds model_usage_since_last_result). */
const BASE = [
  "duration_api_ms",
  "stop_reason",
  "session_id",
  "total_cost_usd",
  "usage",
  "modelUsage",
  "permission_denials",
  "terminal_reason",
  "fast_mode_state",
  "fast_mode_disabled_reason",
  "subagent_stats",
  "safety_stops",
  "is_error",
  "num_turns",
  "subtype",
  "type",
  "duration_ms",
  "uuid",
  "queued_turn_count",
  "result_index",
];
const KEYS: Record<PrintEnding["kind"], string[]> = {
  success: [
    ...BASE,
    "api_error_status",
    "result",
    "ttft_ms",
    "ttft_stream_ms",
    "time_to_request_ms",
    "first_content_frame_ms",
  ],
  "api-error": [...BASE, "api_error_status", "api_error_type", "result"],
  "max-turns": [...BASE, "errors"],
  // claude -p 2.1.332 --max-budget-usd (measured on the stub): the max-turns shape.
  budget: [...BASE, "errors"],
  failure: [...BASE, "errors"],
};

function result(ending: PrintEnding, stream = false, costUsd: number | null = null) {
  return buildResult({
    costUsd,
    ending,
    summary,
    sessionId: "s",
    durationMs: 100,
    uuid: "u",
    resultIndex: 0,
    stream,
    runModelUsage: summary.modelUsage as Record<string, Record<string, unknown>>,
    umbel: { worker: "w", provider: "claude", outcome: "stop", exitCode: 0 },
  });
}

describe("buildResult", () => {
  test.each<[PrintEnding, Record<string, unknown>]>([
    [
      { kind: "success", text: "hi" },
      { subtype: "success", is_error: false, result: "hi", num_turns: 2, terminal_reason: "completed" },
    ],
    [
      { kind: "api-error", text: "API Error: 500" },
      { subtype: "success", is_error: true, result: "API Error: 500", terminal_reason: "api_error" },
    ],
    [
      { kind: "max-turns", maxTurns: 1 },
      {
        subtype: "error_max_turns",
        is_error: true,
        num_turns: 2,
        errors: ["Reached maximum number of turns (1)"],
      },
    ],
    [
      { kind: "budget", unit: "usd", limit: 1e-7 },
      {
        subtype: "error_max_budget_usd",
        is_error: true,
        errors: ["Reached maximum budget ($1e-7)"],
        terminal_reason: "budget_exhausted",
      },
    ],
    [
      { kind: "budget", unit: "tokens", limit: 500 },
      {
        subtype: "error_max_tokens",
        errors: ["Reached maximum tokens (500)"],
        terminal_reason: "budget_exhausted",
      },
    ],
    [
      { kind: "failure", reason: "timeout", message: "timed out after 1s" },
      {
        subtype: "error_during_execution",
        is_error: true,
        errors: ["timed out after 1s"],
        terminal_reason: "timeout",
      },
    ],
  ])("%j: claude's key set and values", (ending, values) => {
    const r = result(ending);
    expect(
      Object.keys(r)
        .filter((k) => k !== "umbel")
        .sort(),
    ).toEqual([...KEYS[ending.kind]].sort());
    expect(r).toMatchObject({ type: "result", ...values, umbel: { worker: "w" } });
  });

  test("stream-json adds this turn's model usage; unknowable values are null", () => {
    const r = result({ kind: "success", text: "x" }, true);
    expect(r.model_usage_since_last_result).toEqual(summary.modelUsage);
    expect(r).toMatchObject({
      total_cost_usd: null,
      fast_mode_state: null,
      ttft_stream_ms: null,
      ttft_ms: 30,
    });
  });
});

describe("usage limits and cost", () => {
  test("a limit is claude -p's usage_limit_reached API error (api_error only for a limit), umbel says limited", () => {
    const r = buildResult({
      ending: { kind: "api-error", text: "You've hit your 5-hour limit" },
      summary: {
        ...summary,
        apiError: { status: 429, type: "rate_limit_error", error: "usage_limit_reached" },
      },
      sessionId: "s",
      durationMs: 1,
      uuid: "u",
      resultIndex: 0,
      stream: false,
      runModelUsage: {},
      costUsd: 0,
      umbel: { worker: "w", provider: "claude", outcome: "limited", exitCode: 1 },
    });
    expect(
      Object.keys(r)
        .filter((k) => k !== "umbel")
        .sort(),
    ).toEqual([...KEYS["api-error"], "api_error"].sort());
    expect(r).toMatchObject({ api_error: "usage_limit_reached", api_error_status: 429, total_cost_usd: 0 });
    expect(Object.keys(result({ kind: "api-error", text: "API Error: 500" }))).not.toContain("api_error");
  });

  test("the cost the provider records fills total_cost_usd", () => {
    expect(result({ kind: "success", text: "x" }, false, 0.0123).total_cost_usd).toBe(0.0123);
  });

  test.each<[Outcome, PrintEnding]>([
    [
      outcome("limited", 120, {
        message: "You've hit your limit",
        limit: { window: "five_hour", resetsAt: null, message: "x" },
      }),
      { kind: "api-error", text: "You've hit your limit" },
    ],
    [
      outcome("limited", 120, { budget: { unit: "tokens", limit: 10, used: 12 } }),
      { kind: "budget", unit: "tokens", limit: 10 },
    ],
  ])("limited → %j", (o, ending) => {
    expect(decideEnding(o, "", null)).toEqual(ending);
    expect(endingExitCode(ending, o)).toBe(1);
  });

  test("a spent --max-budget-usd wins over a turn that ended by itself (claude -p checks after the turn)", () => {
    expect(decideEnding(outcome("stop", 0), "done", null, { unit: "usd", limit: 0.01 })).toEqual({
      kind: "budget",
      unit: "usd",
      limit: 0.01,
    });
  });
});

describe("decideEnding / endingExitCode", () => {
  test.each<[Outcome, number | null, PrintEnding["kind"], number]>([
    [outcome("stop", 0), null, "success", 0],
    [outcome("provider-error", 122, { message: "API Error: 529" }), null, "api-error", 1],
    [outcome("aborted", 130), 2, "max-turns", 1],
    [outcome("input", 126, { prompt: "Bash: rm" }), null, "failure", 126],
    [outcome("timeout", 124, { timeoutMs: 1000 }), null, "failure", 124],
    [outcome("dead", 125), null, "failure", 125],
    [outcome("aborted", 130), null, "failure", 130],
  ])("%j (max turns %p) → %s, exit %d", (o, maxTurns, kind, code) => {
    const ending = decideEnding(o, "text", maxTurns);
    expect(ending.kind).toBe(kind);
    expect(endingExitCode(ending, o)).toBe(code);
  });

  test("an API error's text is the error message", () => {
    expect(decideEnding(outcome("provider-error", 122, { message: "API Error: 529" }), "", null)).toEqual({
      kind: "api-error",
      text: "API Error: 529",
    });
  });
});

test("addModelUsage sums numbers per model across turns", () => {
  const once = addModelUsage({}, { m: { inputTokens: 1, costUSD: null, canonicalModel: "m" } });
  expect(
    addModelUsage(once, { m: { inputTokens: 2, costUSD: null, canonicalModel: "m" }, n: { inputTokens: 5 } }),
  ).toEqual({
    m: { inputTokens: 3, costUSD: null, canonicalModel: "m" },
    n: { inputTokens: 5 },
  });
});
