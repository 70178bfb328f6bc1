import { describe, expect, test } from "bun:test";
import {
  addModelUsage,
  budgetSpentBy,
  buildResult,
  decideEnding,
  endingExitCode,
  type PrintEnding,
  runCostAfter,
} from "../../../src/core/print/result.ts";
import { combineSummaries } from "../../../src/core/print/summary.ts";
import type { TurnSummary } from "../../../src/core/providers/transcript-types.ts";
import type { Outcome } from "../../../src/core/wait/outcome.ts";

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
  "structured-retries": [...BASE, "errors"],
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
      {
        kind: "structured-retries",
        message: "Failed to provide valid structured output after 5 attempts — x",
      },
      {
        subtype: "error_max_structured_output_retries",
        is_error: true,
        num_turns: 3,
        terminal_reason: "structured_output_retry_exhausted",
        errors: ["Failed to provide valid structured output after 5 attempts — x"],
      },
    ],
    [
      { kind: "failure", reason: "rejected", message: "the accept check `false` exited with code 1" },
      { subtype: "error_during_execution", is_error: true, terminal_reason: "rejected" },
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

  test("a structured result: the object's JSON as result, structured_output, stopped on its tool_use", () => {
    const r = result({ kind: "success", text: '{"answer":"yes"}', structured: { answer: "yes" } });
    expect(
      Object.keys(r)
        .filter((k) => k !== "umbel")
        .sort(),
    ).toEqual([...KEYS.success, "structured_output"].sort());
    expect(r).toMatchObject({
      result: '{"answer":"yes"}',
      structured_output: { answer: "yes" },
      stop_reason: "tool_use",
      is_error: false,
    });
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

  test("guarded prompts end as claude -p's: the object; five invalid calls; no call after the enforce message", () => {
    const attempt = (s: { ok: boolean; rejected: number }) => ({
      attempts: [
        {
          attempt: 1,
          baseline: 1,
          at: 3,
          passed: s.ok,
          checks: [],
          structured: { ...s, calls: s.rejected, errors: ["e"] },
        },
      ],
    });
    expect(decideEnding(outcome("stop", 0, { structured: { n: 1 } }), "prose", null)).toEqual({
      kind: "success",
      text: '{"n":1}',
      structured: { n: 1 },
    });
    const retries = outcome("rejected", 121, { detail: "Failed …", ...attempt({ ok: false, rejected: 5 }) });
    expect(decideEnding(retries, "", null)).toEqual({ kind: "structured-retries", message: "Failed …" });
    expect(endingExitCode(decideEnding(retries, "", null), retries)).toBe(1);
    const noCall = outcome("rejected", 121, { detail: "no call", ...attempt({ ok: false, rejected: 0 }) });
    expect(decideEnding(noCall, "the text", null)).toEqual({ kind: "success", text: "the text" });
    const checks = outcome("rejected", 121, { detail: "the accept check `x` exited with code 1" });
    expect(decideEnding(checks, "", null)).toMatchObject({ kind: "failure", reason: "rejected" });
    expect(endingExitCode(decideEnding(checks, "", null), checks)).toBe(121);
  });

  test("a guarded prompt stopped by a usage limit is claude -p's usage limit, never rejected; its attempts ride along", () => {
    const attempts = [{ attempt: 1, baseline: 1, at: 3, passed: false, checks: [] }];
    const limit = { window: "five_hour", resetsAt: null, message: "You've hit your limit" };
    const limited = outcome("limited", 120, { message: "You've hit your limit", limit, attempts });
    const ending = decideEnding(limited, "", null);
    expect(ending).toEqual({ kind: "api-error", text: "You've hit your limit" });
    expect(endingExitCode(ending, limited)).toBe(1);
    const r = buildResult({
      costUsd: 0,
      ending,
      summary,
      sessionId: "s",
      durationMs: 1,
      uuid: "u",
      resultIndex: 0,
      stream: false,
      runModelUsage: {},
      umbel: { worker: "w", provider: "claude", outcome: "limited", exitCode: 1, limit, attempts },
    });
    expect(r).toMatchObject({
      api_error: "usage_limit_reached",
      total_cost_usd: 0,
      umbel: { outcome: "limited", limit: { window: "five_hour" }, attempts: [{ attempt: 1 }] },
    });
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

test("a guarded prompt's turns are one result: messages, usage and API time summed; first ttft, last stop", () => {
  const second: TurnSummary = {
    ...summary,
    assistantMessages: 1,
    usage: { input_tokens: 5, output_tokens: 1, server_tool_use: { web_search_requests: 0 } },
    stopReason: "tool_use",
    ttftMs: 99,
    durationApiMs: 10,
  };
  expect(combineSummaries([])).toBeNull();
  expect(combineSummaries([summary])).toBe(summary);
  expect(combineSummaries([summary, second])).toMatchObject({
    assistantMessages: 3,
    usage: { input_tokens: 15, output_tokens: 3, server_tool_use: { web_search_requests: 0 } },
    modelUsage: { m: { inputTokens: 20, outputTokens: 4 } },
    stopReason: "tool_use",
    durationApiMs: 50,
    ttftMs: 30,
  });
});

test("umbel's StructuredOutput is never a permission denial: its tool use rejected by umbel's own interrupt (five invalid calls) is not counted", () => {
  const denial = (tool_name: string) => ({ tool_name, tool_use_id: `t-${tool_name}`, tool_input: {} });
  const interrupted = {
    ...summary,
    permissionDenials: [denial("mcp__umbel_structured__StructuredOutput"), denial("Write")],
  };
  expect(combineSummaries([interrupted])?.permissionDenials).toEqual([denial("Write")]);
  expect(combineSummaries([summary, interrupted])?.permissionDenials).toEqual([denial("Write")]);
});

describe("-p's run cost and its settled budget", () => {
  test.each([
    ["the session's cost less the run's start", 0.4, 1.5, 1.0, true, 0.5],
    ["a turn that used no tokens keeps the run's cost", 0.4, 9.0, 1.0, false, 0.4],
    ["no cost recorded: the run's cost stays", 0.4, null, 1.0, true, 0.4],
    ["never below zero", null, 0.5, 1.0, true, 0],
  ] as const)("%s", (_, previous, turn, base, used, expected) => {
    expect(runCostAfter(previous, turn, base, used)).toBe(expected);
  });

  test("spent once the run's cost reaches the budget; none without a budget or a cost", () => {
    expect(budgetSpentBy(0.5, 0.5)).toEqual({ unit: "usd", limit: 0.5 });
    expect(budgetSpentBy(0.5, 0.49)).toBeNull();
    expect(budgetSpentBy(undefined, 9)).toBeNull();
    expect(budgetSpentBy(0.5, null)).toBeNull();
  });
});
