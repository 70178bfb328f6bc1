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
  failure: [...BASE, "errors"],
};

function result(ending: PrintEnding, stream = false) {
  return buildResult({
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
