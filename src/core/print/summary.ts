import { isStructuredTool } from "../dialects/tool-kind.ts";
import type { TurnSummary } from "../providers/transcript-types.ts";

/**
 * A guarded `-p` prompt is several turns (an enforce message or an accept check's feedback, each a
 * turn of its own); claude -p reports such a run as one result: API messages, usage and time summed,
 * the first turn's time to first token, the last turn's stop and end.
 */
export function combineSummaries(summaries: readonly TurnSummary[]): TurnSummary | null {
  const [first, ...rest] = summaries;
  if (!first) return null;
  const last = rest.at(-1) ?? first;
  if (rest.length === 0) return withoutOwnInterrupts(first);
  return withoutOwnInterrupts({
    ...last,
    assistantMessages: sum(summaries.map((s) => s.assistantMessages)),
    usage: summaries.map((s) => s.usage).reduce(addNumbers),
    modelUsage: sumModelUsage(summaries),
    durationApiMs: summaries.some((s) => s.durationApiMs === null)
      ? null
      : sum(summaries.map((s) => s.durationApiMs ?? 0)),
    ttftMs: first.ttftMs,
    timeToRequestMs: first.timeToRequestMs,
    permissionDenials: summaries.flatMap((s) => s.permissionDenials),
  });
}

/**
 * umbel's StructuredOutput is always allowed, so its tool use "rejected" in the transcript is umbel's
 * own interrupt (after five invalid calls: the Escape can land while the fifth call is in flight;
 * claude 2.1.332 records it as the user's rejection), never a permission denial claude -p would report.
 */
function withoutOwnInterrupts(summary: TurnSummary): TurnSummary {
  const own = (d: Readonly<Record<string, unknown>>) =>
    typeof d.tool_name === "string" && isStructuredTool(d.tool_name);
  if (!summary.permissionDenials.some(own)) return summary;
  return { ...summary, permissionDenials: summary.permissionDenials.filter((d) => !own(d)) };
}

function sumModelUsage(summaries: readonly TurnSummary[]): TurnSummary["modelUsage"] {
  const out: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const s of summaries)
    for (const [model, usage] of Object.entries(s.modelUsage))
      out[model] = addNumbers(out[model] ?? {}, usage);
  return out;
}

/** Numbers add, key by key (nested objects too); anything else keeps the later value. */
function addNumbers(
  a: Readonly<Record<string, unknown>>,
  b: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [key, value] of Object.entries(b)) {
    const prior = a[key];
    if (typeof value === "number" && typeof prior === "number") out[key] = prior + value;
    else if (isPlain(value) && isPlain(prior)) out[key] = addNumbers(prior, value);
    else out[key] = value;
  }
  return out;
}

function isPlain(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function sum(values: readonly number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
