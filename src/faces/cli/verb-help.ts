import type { Verb } from "../verbs/verb.ts";
import { type FlagInfo, flagsOf, type PositionalInfo, positionalsOf } from "./flags.ts";

/**
 * `umbel <verb> --help`: the synopsis (required arguments bare, optional ones in brackets), the
 * arguments, the flags in a narrow column with descriptions wrapped to the terminal, and examples.
 * Colour only on a terminal without NO_COLOR (no-color.org): `umbel spawn --help | less` is text.
 */

/** Flag labels longer than this put their description on the next line instead of widening the column. */
const FLAG_COLUMN_MAX = 28;
/** Below this many columns for a description, it goes under its flag, indented. */
const MIN_DESCRIPTION = 24;

export type HelpStyle = { readonly width: number; readonly colour: boolean };

export function renderVerbHelp(verb: Verb, style: HelpStyle): string {
  const width = Math.max(40, style.width);
  const bold = (s: string) => (style.colour ? `\u001b[1m${s}\u001b[22m` : s);
  const positionals = positionalsOf(verb);
  const out = [`${bold("Usage:")} umbel ${verb.name}${positionals.map(synopsis).join("")} [flags]`, ""];
  out.push(...wrap(verb.description, width), "");
  if (verb.cli?.details) out.push(...wrap(verb.cli.details, width), "");
  if (positionals.length > 0) {
    out.push(bold("Arguments:"));
    out.push(
      ...table(
        positionals.map((p) => [p.label, positionalText(p)]),
        width,
        bold,
      ),
    );
    out.push("");
  }
  out.push(bold("Flags:"));
  out.push(
    ...table(
      flagsOf(verb).map((f) => [flagLabel(f), flagText(f)]),
      width,
      bold,
    ),
  );
  const examples = verb.cli?.examples ?? [];
  if (examples.length > 0) out.push("", bold("Examples:"), ...examples.map((e) => `  ${e}`));
  return `${out.join("\n")}\n`;
}

function synopsis(p: PositionalInfo): string {
  const label = p.rest ? `${p.label}...` : p.label;
  if (p.stdin) return ` [${label} | -]`;
  return p.required ? ` ${label}` : ` [${label}]`;
}

function positionalText(p: PositionalInfo): string {
  const notes = [p.required ? "required" : "", p.stdin ? "or stdin, with - or when piped" : ""].filter(
    Boolean,
  );
  return `${p.description}${notes.length > 0 ? ` (${notes.join("; ")})` : ""}`;
}

function flagLabel(f: FlagInfo): string {
  const name = f.alias ? `-${f.alias}, ${f.flag}` : f.flag;
  return f.hint ? `${name} ${f.hint}` : name;
}

function flagText(f: FlagInfo): string {
  const choices = f.choices.length > 0 ? `. One of: ${f.choices.join(", ")}` : "";
  const fallback = f.defaultValue !== null ? ` (default ${f.defaultValue})` : "";
  return `${f.description}${choices}${fallback}`;
}

/** Two columns: labels padded to the widest that fits FLAG_COLUMN_MAX, text wrapped beside them. */
function table(rows: readonly [string, string][], width: number, bold: (s: string) => string): string[] {
  const fitting = rows.map(([label]) => label.length).filter((n) => n <= FLAG_COLUMN_MAX);
  const column = Math.max(0, ...fitting);
  const beside = width - (2 + column + 2) >= MIN_DESCRIPTION;
  const indent = beside ? 2 + column + 2 : 6;
  const lines: string[] = [];
  for (const [label, text] of rows) {
    const wrapped = wrap(text, width - indent);
    const pad = " ".repeat(indent);
    if (beside && label.length <= column) {
      const [first = "", ...more] = wrapped;
      lines.push(`  ${bold(label)}${" ".repeat(column - label.length + 2)}${first}`);
      lines.push(...more.map((l) => `${pad}${l}`));
    } else {
      lines.push(`  ${bold(label)}`, ...wrapped.map((l) => `${pad}${l}`));
    }
  }
  return lines;
}

/** Greedy word wrap; a word longer than the width stands on its own line. */
function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== "" && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line === "" ? word : `${line} ${word}`;
  }
  if (line !== "") lines.push(line);
  return lines.length > 0 ? lines : [""];
}
