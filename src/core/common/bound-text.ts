import { z } from "zod";
import { UsageError } from "../errors.ts";
import { findHeadings, findSection } from "./markdown.ts";
import { choiceError } from "./suggest.ts";

/**
 * Bounding a long text (an agent's answer) so it does not flood a caller's context, and saying
 * exactly what was cut. Characters are Unicode code points, so a cut never splits an emoji.
 */

export const DEFAULT_MAX_CHARS = 20_000;
/** Headings listed back when something was cut, so the caller can ask for one section. */
const MAX_HEADINGS = 50;

const BoundMode = z
  .enum(["head", "tail", "section", "full"], { error: choiceError })
  .describe(
    "What to keep of a long answer: head (the start), tail (the end), section (one markdown section), full (everything). Default head, or section when `section` is given",
  );
type BoundMode = z.infer<typeof BoundMode>;

export const TextBound = z
  .object({
    mode: BoundMode.optional(),
    maxChars: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(`Return at most this many characters (default ${DEFAULT_MAX_CHARS}; not with mode full)`),
    maxLines: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Return at most this many lines (not with mode full)"),
    section: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The markdown heading whose section to return (case-insensitive; # marks optional); the section runs to the next heading of the same or a higher level",
      ),
  })
  .strict();
export type TextBound = z.infer<typeof TextBound>;

export const BoundReport = z
  .object({
    mode: BoundMode,
    truncated: z.boolean().describe("Some of the text was left out"),
    totalChars: z.number().int().describe("Characters (code points) in the whole text"),
    totalLines: z.number().int().describe("Lines in the whole text"),
    shownChars: z.number().int().describe("Characters returned"),
    shownLines: z.number().int().describe("Lines returned"),
    fromLine: z.number().int().nullable().describe("First line returned (1-based; null when none was)"),
    toLine: z.number().int().nullable().describe("Last line returned (null when none was)"),
    section: z.string().nullable().describe("With mode section: the heading found (null when none matched)"),
    headings: z
      .array(z.string())
      .describe("The text's headings, listed when something was cut or no section matched"),
    note: z.string().nullable().describe("What was cut and how to get the rest; null when nothing was"),
  })
  .describe("What of the text was returned");
export type BoundReport = z.infer<typeof BoundReport>;

export type Bounded = { text: string; report: BoundReport };

export function boundText(text: string, bound: TextBound = {}): Bounded {
  const mode: BoundMode = bound.mode ?? (bound.section === undefined ? "head" : "section");
  const whole: Whole = { text, chars: countCodePoints(text), lines: splitLines(text).length };
  if (mode === "full") {
    if (bound.maxChars !== undefined || bound.maxLines !== undefined)
      throw new UsageError("mode full returns everything: drop maxChars/maxLines, or use head or tail");
    return finish(whole, mode, text, lineRange(0, whole.lines), { headings: [], note: null });
  }
  const limits = {
    chars: bound.maxChars ?? DEFAULT_MAX_CHARS,
    lines: bound.maxLines ?? Number.POSITIVE_INFINITY,
  };
  const outline = findHeadings(text)
    .slice(0, MAX_HEADINGS)
    .map((h) => `${"#".repeat(h.level)} ${h.title}`);
  if (mode === "section") {
    if (bound.section === undefined) throw new UsageError("mode section needs `section` (a heading)");
    return boundSection(whole, bound.section, limits, outline);
  }
  const kept = cut(text, mode, limits);
  const shown = splitLines(kept).length;
  const range = mode === "head" ? lineRange(0, shown) : lineRange(whole.lines - shown, whole.lines);
  if (kept.length === text.length) return finish(whole, mode, kept, range, { headings: [], note: null });
  const what = `the ${mode === "head" ? "first" : "last"} ${countCodePoints(kept)} of ${whole.chars} characters`;
  const other = mode === "head" ? "tail" : "head";
  const note = `showed ${what} (lines ${range.fromLine}-${range.toLine} of ${whole.lines}); ask again with mode ${other}, a section, a larger maxChars, or mode full for the rest`;
  return finish(whole, mode, kept, range, { headings: outline, note });
}

type Whole = { text: string; chars: number; lines: number };
type Limits = { chars: number; lines: number };
type Range = { fromLine: number | null; toLine: number | null };

function boundSection(whole: Whole, wanted: string, limits: Limits, outline: string[]): Bounded {
  const found = findSection(whole.text, wanted);
  if (!found) {
    const known = outline.length ? `headings: ${outline.join(" | ")}` : "the text has no markdown headings";
    const note = `no heading matches "${wanted}"; ${known}`;
    return finish(whole, "section", "", lineRange(0, 0), { headings: outline, note });
  }
  const kept = cut(found.text, "head", limits);
  const from = found.heading.line - 1;
  const range = lineRange(from, from + splitLines(kept).length);
  const partial =
    kept.length < found.text.length
      ? `, cut after ${countCodePoints(kept)} of its ${countCodePoints(found.text)} characters`
      : "";
  const note =
    kept.length < whole.text.length
      ? `showed section "${found.heading.title}" (lines ${range.fromLine}-${range.toLine} of ${whole.lines})${partial}; the rest of the text was left out`
      : null;
  const bounded = finish(whole, "section", kept, range, { headings: outline, note });
  return { ...bounded, report: { ...bounded.report, section: found.heading.title } };
}

function finish(
  whole: Whole,
  mode: BoundMode,
  text: string,
  range: Range,
  extra: { headings: string[]; note: string | null },
): Bounded {
  return {
    text,
    report: {
      mode,
      truncated: text.length < whole.text.length,
      totalChars: whole.chars,
      totalLines: whole.lines,
      shownChars: countCodePoints(text),
      shownLines: splitLines(text).length,
      ...range,
      section: null,
      ...extra,
    },
  };
}

/** A prefix (head) or suffix (tail) within both limits. */
function cut(text: string, mode: "head" | "tail", limits: Limits): string {
  const lines = splitLines(text);
  const picked =
    lines.length <= limits.lines
      ? text
      : (mode === "head" ? lines.slice(0, limits.lines) : lines.slice(-limits.lines)).join("");
  // UTF-16 length ≥ code points, so a string this short is surely within the limit.
  if (picked.length <= limits.chars) return picked;
  return mode === "head"
    ? picked.slice(0, codePointOffset(picked, limits.chars))
    : picked.slice(codePointOffset(picked, countCodePoints(picked) - limits.chars));
}

/** Lines with their newlines kept: "a\nb\n" is two lines, "a\nb" too, "" none. */
function splitLines(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Array.from(text).length without building the array (which costs ~50 ms for 20 KB in Bun). */
function countCodePoints(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (!isLowHalf(text, i)) n++;
  return n;
}

/** The UTF-16 index at which code point number `count` (0-based) starts. */
function codePointOffset(text: string, count: number): number {
  let seen = 0;
  for (let i = 0; i < text.length; i++) {
    if (isLowHalf(text, i)) continue;
    if (seen++ === count) return i;
  }
  return text.length;
}

/** The second half of a surrogate pair (an emoji's tail): never a place to cut. */
function isLowHalf(text: string, i: number): boolean {
  const c = text.charCodeAt(i);
  if (c < 0xdc00 || c > 0xdfff || i === 0) return false;
  const prev = text.charCodeAt(i - 1);
  return prev >= 0xd800 && prev <= 0xdbff;
}

/** 1-based inclusive range for the 0-based half-open [start, end). */
function lineRange(start: number, end: number): Range {
  return end > start ? { fromLine: start + 1, toLine: end } : { fromLine: null, toLine: null };
}
