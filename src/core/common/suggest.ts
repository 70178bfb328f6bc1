import type { z } from "zod";
import { quoteArg } from "./quote.ts";

/**
 * "Did you mean": the word a person probably meant, among the ones a place knows (verbs, an enum's
 * values, a workflow's keys). Only a near miss is offered: a wrong guess misleads more than none.
 */

/**
 * The known word `word` was probably meant to be: the same but for case, the one word it starts
 * (three letters at least), or the one nearest by edit distance (1 for words under 6 letters, else
 * 2). Two at the same distance are no guess.
 */
export function closest(word: string, known: readonly string[]): string | undefined {
  const lower = word.toLowerCase();
  if (lower === "" || lower.length > Math.max(0, ...known.map((k) => k.length)) + 2) return undefined;
  const same = known.find((k) => k.toLowerCase() === lower);
  if (same !== undefined) return same;
  const starts = known.filter((k) => k.toLowerCase().startsWith(lower));
  if (lower.length >= 3 && starts.length === 1) return starts[0];
  const limit = lower.length >= 6 ? 2 : 1;
  const near = known
    .map((k) => ({ k, d: distance(k.toLowerCase(), lower) }))
    .filter((x) => x.d <= limit)
    .sort((a, b) => a.d - b.d);
  if (near.length === 0 || (near.length > 1 && near[0]?.d === near[1]?.d)) return undefined;
  return near[0]?.k;
}

/** The known key `key` was probably meant to be: its camelCase spelling, or one at most 2 edits away. */
export function suggestKey(key: string, known: readonly string[]): string | undefined {
  // A key longer than any known one by more than 2 is never close; skip the quadratic distance.
  if (key.length > Math.max(0, ...known.map((k) => k.length)) + 2) return undefined;
  const camel = key.replace(/[-_]([a-z])/g, (_, c: string) => c.toUpperCase());
  return (
    known.find((k) => k === camel) ??
    known
      .map((k) => ({ k, d: distance(k.toLowerCase(), key.toLowerCase()) }))
      .filter((x) => x.d <= 2)
      .sort((a, b) => a.d - b.d)[0]?.k
  );
}

/** `; did you mean X?` when there is a near miss, else "". */
export function didYouMean(word: string, known: readonly string[]): string {
  const guess = closest(word, known);
  return guess === undefined ? "" : `; did you mean ${guess}?`;
}

/**
 * The message of an enum given a value it does not hold (`z.enum([...], { error: choiceError })`),
 * in every face alike — the CLI's flags, -p, MCP and YAML: `"claud" is not one of claude, codex,
 * gemini, opencode; did you mean claude?`. A missing value keeps zod's own message.
 */
export function choiceError(issue: z.core.$ZodRawIssue): string | undefined {
  if (issue.code !== "invalid_value" || issue.input === undefined) return undefined;
  return notOneOf(issue.input, issue.values.map(String));
}

/** `"claud" is not one of claude, codex, gemini, opencode; did you mean claude?` */
export function notOneOf(input: unknown, values: readonly string[]): string {
  const shown = typeof input === "string" ? quoted(input) : asJson(input);
  const hint = typeof input === "string" ? didYouMean(input, values) : "";
  return `${shown} is not one of ${values.join(", ")}${hint}`;
}

/** Edit distance: insertions, deletions, substitutions and a swap of neighbours ("spwan") each count 1. */
export function distance(a: string, b: string): number {
  const rows: number[][] = [Array.from({ length: b.length + 1 }, (_, j) => j)];
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    const up = rows[i - 1] ?? [];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min((up[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (up[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d = Math.min(d, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      row.push(d);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}

/** "an input screen", "a sign-in screen": the article a noun phrase built from a name takes. */
export function withArticle(noun: string): string {
  return `${/^[aeiou]/i.test(noun) ? "an" : "a"} ${noun}`;
}

/** A value that is not a string (a number, a YAML list) as JSON, when that is short and plain. */
function asJson(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length <= 60 && /^[^\p{C}]*$/u.test(text)
    ? text
    : `a ${Array.isArray(value) ? "list" : typeof value}`;
}

/** A value as a message quotes it: always in quotes, one line (core/common/quote.ts escapes the rest). */
function quoted(word: string): string {
  const shown = quoteArg(word);
  return shown.startsWith('"') ? shown : `"${shown}"`;
}
