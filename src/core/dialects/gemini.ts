import { parseJsonObject } from "../common/json.ts";
import type { TurnSummary } from "../providers/transcript-types.ts";
import { commandResult, toolKind } from "./tool-kind.ts";
import type { TallyStep, ToolCall } from "./turn-tally.ts";

/**
 * gemini -p's output (0.61.0, measured: docs/providers.md "gemini -p"), filled from umbel's turn.
 * Token counts come from the summary's claude-shaped modelUsage: gemini's `prompt` counts cached
 * tokens (claude's input_tokens does not) and its `candidates` exclude thoughts (claude's output
 * includes them), so both are rebuilt: prompt = input + cache reads + cache writes, candidates =
 * output − thinking.
 */

type Json = Record<string, unknown>;

/** stream-json's events for one step of the turn (thinking is never printed by gemini -p). */
export function geminiEvents(step: TallyStep, now: string): Json[] {
  const timestamp = step.timestamp ?? now;
  switch (step.kind) {
    case "text":
      return [{ type: "message", timestamp, role: "assistant", content: step.text, delta: true }];
    case "call":
      return [
        {
          type: "tool_use",
          timestamp,
          tool_name: step.call.name,
          tool_id: step.call.id,
          parameters: step.call.input,
        },
      ];
    case "result": {
      const r = step.call.result;
      if (!r) return [];
      const error = r.isError ? errorOf(r.text) : null;
      return [
        {
          type: "tool_result",
          timestamp,
          tool_id: step.call.id,
          status: r.isError ? "error" : "success",
          output: error?.reported ? error.message : displayOf(step.call, r.text, r.isError),
          ...(error ? { error: { type: error.type, message: error.message } } : {}),
        },
      ];
    }
    case "thinking":
      return [];
  }
}

/**
 * A failed call's error as gemini -p prints it. gemini's transcript keeps the response the model got
 * (`{"error": "…"}`): its words are the message; a tool it does not offer (gemini -p's left-out
 * tools, excluded in umbel's non-interactive workers too) is `tool_not_registered` (0.61.0).
 */
function errorOf(text: string): { type: string; message: string; reported: boolean } {
  const parsed = parseJsonObject(text);
  const reported = parsed !== null && typeof parsed.error === "string";
  const message = reported ? String(parsed.error) : text;
  const type = /^Tool "[^"]+" not found\b/.test(message) ? "tool_not_registered" : "TOOL_EXECUTION_ERROR";
  return { type, message, reported };
}

/**
 * gemini prints a tool's display text, which a transcript does not keep; a shell call's output is
 * cut out of what the model saw (gemini's `Output: …` block, codex's, claude's), the rest is as is.
 */
function displayOf(call: ToolCall, text: string, isError: boolean): string {
  return toolKind(call.name, call.input).kind === "command" ? commandResult(text, isError).output : text;
}

type Counts = {
  prompt: number;
  input: number;
  cached: number;
  candidates: number;
  thoughts: number;
  total: number;
};

/** Per model, gemini's token counts (its `tool` count is not in any transcript umbel reads: 0). */
function countsOf(summary: TurnSummary | null): Record<string, Counts> {
  const out: Record<string, Counts> = {};
  for (const [model, u] of Object.entries(summary?.modelUsage ?? {})) {
    const n = (key: string) => (typeof u[key] === "number" ? (u[key] as number) : 0);
    const cached = n("cacheReadInputTokens");
    const prompt = n("inputTokens") + cached + n("cacheCreationInputTokens");
    const thoughts = n("thinkingTokens");
    const candidates = Math.max(0, n("outputTokens") - thoughts);
    out[model] = {
      prompt,
      input: prompt - cached,
      cached,
      candidates,
      thoughts,
      total: prompt + candidates + thoughts,
    };
  }
  return out;
}

/**
 * `--output-format json`'s `stats`: per model its API requests and tokens (the turn's API time goes
 * to the model when one answered; with several the transcript does not split it: 0 each), the tool
 * calls (time from the call's line to its result's), and file line counts (0: not in a transcript).
 */
export function geminiStats(a: {
  summary: TurnSummary | null;
  requests: Record<string, number>;
  calls: readonly ToolCall[];
  deniedIds: ReadonlySet<string>;
}): Json {
  const counts = countsOf(a.summary);
  const models = [...new Set([...Object.keys(counts), ...Object.keys(a.requests)])];
  const latency = models.length === 1 ? (a.summary?.durationApiMs ?? 0) : 0;
  const modelStats: Json = {};
  for (const model of models) {
    const c = counts[model] ?? { prompt: 0, input: 0, cached: 0, candidates: 0, thoughts: 0, total: 0 };
    const tokens = {
      input: c.input,
      prompt: c.prompt,
      candidates: c.candidates,
      total: c.total,
      cached: c.cached,
      thoughts: c.thoughts,
      tool: 0,
    };
    const api = { totalRequests: a.requests[model] ?? 0, totalErrors: 0, totalLatencyMs: latency };
    modelStats[model] = { api: { ...api, errorsByType: {} }, tokens, roles: { main: { ...api, tokens } } };
  }
  return {
    models: modelStats,
    tools: toolStats(a.calls, a.deniedIds),
    files: { totalLinesAdded: 0, totalLinesRemoved: 0 },
  };
}

function toolStats(calls: readonly ToolCall[], denied: ReadonlySet<string>): Json {
  const decisions = () => ({ accept: 0, reject: 0, modify: 0, auto_accept: 0 });
  const total = {
    totalCalls: 0,
    totalSuccess: 0,
    totalFail: 0,
    totalDurationMs: 0,
    totalDecisions: decisions(),
  };
  const byName: Record<
    string,
    {
      count: number;
      success: number;
      fail: number;
      durationMs: number;
      decisions: ReturnType<typeof decisions>;
    }
  > = {};
  for (const call of calls) {
    if (!call.result) continue; // gemini counts a call once it completed
    const ms = call.at !== null && call.result.at !== null ? Math.max(0, call.result.at - call.at) : 0;
    // A tool gemini does not have was never decided on (0.61.0 counts no decision for it).
    const unknown = call.result.isError && errorOf(call.result.text).type === "tool_not_registered";
    const decision = unknown ? null : denied.has(call.id) ? "reject" : "accept";
    const one = byName[call.name] ?? { count: 0, success: 0, fail: 0, durationMs: 0, decisions: decisions() };
    byName[call.name] = one;
    one.count++;
    total.totalCalls++;
    if (call.result.isError) {
      one.fail++;
      total.totalFail++;
    } else {
      one.success++;
      total.totalSuccess++;
    }
    one.durationMs += ms;
    total.totalDurationMs += ms;
    if (decision) {
      one.decisions[decision]++;
      total.totalDecisions[decision]++;
    }
  }
  return { ...total, byName };
}

/** stream-json's `stats` on its `result` event. */
export function geminiStreamStats(a: {
  summary: TurnSummary | null;
  durationMs: number;
  toolCalls: number;
  /** The model the run asked for: gemini lists it with zeros when no request was answered. */
  model: string | null;
}): Json {
  const counts = countsOf(a.summary);
  if (Object.keys(counts).length === 0 && a.model !== null)
    counts[a.model] = { prompt: 0, input: 0, cached: 0, candidates: 0, thoughts: 0, total: 0 };
  const totals = { total_tokens: 0, input_tokens: 0, output_tokens: 0, cached: 0, input: 0 };
  const models: Json = {};
  for (const [model, c] of Object.entries(counts)) {
    const one = {
      total_tokens: c.total,
      input_tokens: c.prompt,
      output_tokens: c.candidates,
      cached: c.cached,
      input: c.input,
    };
    models[model] = one;
    for (const key of Object.keys(totals) as (keyof typeof totals)[]) totals[key] += one[key];
  }
  return { ...totals, duration_ms: a.durationMs, tool_calls: a.toolCalls, models };
}

/**
 * How gemini words an API error: stream-json's `[API Error: <the API's JSON>]`; json's `error.message`
 * is the JSON alone. A transcript's text may already carry the wrapper (gemini's own recording).
 */
export function apiErrorTexts(text: string): { stream: string; json: string } {
  const inner = /^\[API Error: ([\s\S]*)\]$/.exec(text.trim())?.[1] ?? text;
  return { stream: `[API Error: ${inner}]`, json: inner };
}

/**
 * gemini -p's exit status for an error it reports as JSON: `process.exit(status)` of the API error's
 * HTTP status, which the OS keeps modulo 256 (measured: a 400 exits 144); no status: 1.
 */
export function geminiErrorExit(status: number | null): number {
  return status === null ? 1 : status % 256;
}
