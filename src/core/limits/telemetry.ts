import { z } from "zod";

/**
 * Per-worker telemetry (`status --json`, `ls --json`, MCP): tokens, turns, context, model, cost and
 * subscription windows, all read from the provider's own records (transcripts, claude's statusline
 * JSON); a value a provider does not record is null with its reason in `missing`, never a guess
 * from a hand-kept price table.
 */

export const TokenCounts = z
  .object({
    input: z.number().int().describe("Input tokens not read from the cache"),
    output: z
      .number()
      .int()
      .describe("Output tokens (reasoning included where the provider counts it there)"),
    cacheRead: z.number().int().describe("Input tokens read from the prompt cache"),
    cacheWrite: z.number().int().describe("Input tokens written to the prompt cache"),
    total: z.number().int().describe("input + output + cacheRead + cacheWrite"),
  })
  .describe("Token counts, from the provider's own records");
export type TokenCounts = z.infer<typeof TokenCounts>;

export const RateWindow = z
  .object({
    name: z
      .string()
      .describe(
        "The window as the provider names it (claude five_hour, seven_day; codex primary, secondary)",
      ),
    usedPercent: z.number().describe("How much of the window is used, in percent"),
    resetsAt: z.string().nullable().describe("When it resets (ISO 8601)"),
    minutes: z.number().nullable().describe("The window's length in minutes, where the provider says"),
  })
  .describe("A subscription usage window");
export type RateWindow = z.infer<typeof RateWindow>;

export const Telemetry = z
  .object({
    model: z.string().nullable().describe("The model the provider last reported"),
    turns: z.number().int().describe("Prompts the worker has taken (human turns in the transcript)"),
    lastTurn: TokenCounts.nullable().describe("Tokens of the last turn"),
    total: TokenCounts.describe("Tokens of the whole session"),
    contextUsedPercent: z.number().nullable().describe("How full the context window is, in percent"),
    costUsd: z
      .number()
      .nullable()
      .describe(
        "The session's cost in USD as the provider records it (claude's statusline); null where none is recorded",
      ),
    windows: z
      .array(RateWindow)
      .describe(
        "Subscription windows with their used percent and reset (claude subscribers, codex with rate-limit headers)",
      ),
    missing: z
      .record(z.string(), z.string())
      .describe("Fields that are null, each with why (e.g. costUsd: codex records no cost)"),
  })
  .describe("Tokens, turns, context, model, cost and windows from the provider's own records");
export type Telemetry = z.infer<typeof Telemetry>;

/** The file in a worker's events dir where claude's statusLine command leaves its last JSON. */
export const STATUS_LINE_FILE = "statusline.json";

/** The records a provider reads telemetry from (files umbel read for it; null when absent). */
export type TelemetryRecords = {
  readonly transcript: string | null;
  /** claude: the last JSON its statusLine command received (events/statusline.json). */
  readonly statusLine: string | null;
};

export function emptyTokens(): TokenCounts {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 };
}

/** Counts from claude-shaped usage (`input_tokens`, `output_tokens`, `cache_*_input_tokens`). */
export function tokensOfUsage(usage: unknown): TokenCounts {
  const u = usage !== null && typeof usage === "object" ? (usage as Record<string, unknown>) : {};
  const n = (key: string) => (typeof u[key] === "number" ? Math.max(0, Math.round(u[key] as number)) : 0);
  return withTotal({
    input: n("input_tokens"),
    output: n("output_tokens"),
    cacheRead: n("cache_read_input_tokens"),
    cacheWrite: n("cache_creation_input_tokens"),
  });
}

export function addTokens(a: TokenCounts, b: TokenCounts): TokenCounts {
  return withTotal({
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
  });
}

export function withTotal(t: Omit<TokenCounts, "total">): TokenCounts {
  return { ...t, total: t.input + t.output + t.cacheRead + t.cacheWrite };
}

/** A percentage as providers show it: one decimal at most. */
export function roundPercent(value: number): number {
  return Math.round(value * 10) / 10;
}
