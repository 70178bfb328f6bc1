import type { TurnSummary } from "./providers/transcript-types.ts";

/**
 * A guarded `-p` prompt is several turns (an enforce message or an accept check's feedback, each a
 * turn of its own); claude -p reports such a run as one result: API messages, usage and time summed,
 * the first turn's time to first token, the last turn's stop and end.
 */
export function combineSummaries(summaries: readonly TurnSummary[]): TurnSummary | null {
  const [first, ...rest] = summaries;
  if (!first) return null;
  const last = rest.at(-1) ?? first;
  if (rest.length === 0) return first;
  return {
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
  };
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
