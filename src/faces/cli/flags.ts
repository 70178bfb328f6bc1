import type { z } from "zod";
import type { AnyObject, Verb } from "../verbs/verb.ts";
import { argsFromSchema, kebab, positionalLabel } from "./args.ts";

/**
 * A verb's arguments as a person reads them: what --help prints (verb-help.ts) and what shell
 * completion offers (completion/). Descriptions come from argsFromSchema, as citty's do, so help,
 * completion, the parser and the MCP schema read one zod object.
 */

export type FlagInfo = {
  readonly flag: string;
  readonly alias: string | null;
  /** The value's placeholder (`--cwd CWD`), null for a boolean. */
  readonly hint: string | null;
  readonly description: string;
  /** An enum's values (completion offers them; help lists them). */
  readonly choices: readonly string[];
  readonly defaultValue: string | null;
  /** What completes the value: folders, files, or nothing in particular. */
  readonly completes: "dir" | "file" | "none";
};

export type PositionalInfo = {
  readonly label: string;
  readonly description: string;
  readonly required: boolean;
  /** A list that takes every remaining argument (keys NAME K…). */
  readonly rest: boolean;
  /** Read from stdin when absent or `-` (send's prompt). */
  readonly stdin: boolean;
  /** A worker name of this state root, or a list of them (completion asks `umbel ls`). */
  readonly worker: boolean;
};

export const JSON_FLAG: FlagInfo = {
  flag: "--json",
  alias: null,
  hint: null,
  description: "Print the result as JSON",
  choices: [],
  defaultValue: null,
  completes: "none",
};

/** Flags whose values are paths, by field. */
const DIRS = new Set(["cwd", "addDir"]);
const FILES = new Set(["mcpConfig", "settings"]);

export function positionalsOf(verb: Verb): PositionalInfo[] {
  const cli = verb.cli;
  const defs = argsFromSchema(verb.input, cli?.positionals ?? []);
  return (cli?.positionals ?? []).map((key) => {
    const field = verb.input.shape[key] as z.ZodType;
    return {
      label: positionalLabel(key),
      description: defs[key]?.description ?? "",
      required: !field.safeParse(undefined).success,
      rest: unwrap(field).def.type === "array",
      stdin: cli?.stdin === key,
      // spawn's NAME is a new one; wait's NAMES (--any/--all) are workers too.
      worker: (key === "name" || key === "names") && verb.name !== "spawn",
    };
  });
}

export function flagsOf(verb: Verb): FlagInfo[] {
  return [...flagsOfSchema(verb.input, verb.cli?.positionals ?? [], verb.cli?.aliases ?? {}), JSON_FLAG];
}

/** The flags of any input schema (`umbel run`'s too): every field that is not taken by position. */
export function flagsOfSchema(
  input: AnyObject,
  positionals: readonly string[],
  aliases: Readonly<Record<string, string>> = {},
): FlagInfo[] {
  const defs = argsFromSchema(input, positionals);
  return Object.entries(input.shape)
    .filter(([key]) => !positionals.includes(key))
    .map(([key, f]): FlagInfo => {
      const field = f as z.ZodType;
      const inner = unwrap(field);
      const boolean = inner.def.type === "boolean";
      const options = (inner as { options?: readonly unknown[] }).options;
      const choices = inner.def.type === "enum" && options ? options.map(String) : [];
      return {
        flag: `--${kebab(key)}`,
        alias: aliases[key] ?? null,
        hint: boolean ? null : inner.def.type === "record" ? "K=V|K" : hintOf(key),
        description: defs[kebab(key)]?.description ?? "",
        choices,
        defaultValue: defaultOf(field),
        completes: DIRS.has(key) ? "dir" : FILES.has(key) ? "file" : "none",
      };
    });
}

/** The field's last word: `--cwd CWD`, `--permission-mode MODE`, `--append-system-prompt PROMPT`. */
function hintOf(key: string): string {
  return (kebab(key).split("-").at(-1) ?? key).toUpperCase();
}

/** optional/default/nullable wrappers off, and a pipe's input (a duration is a string or a number). */
function unwrap(field: z.ZodType): z.ZodType {
  let s = field;
  for (;;) {
    const def = s.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
    if ((def.type === "optional" || def.type === "default" || def.type === "nullable") && def.innerType)
      s = def.innerType;
    else if (def.type === "pipe" && def.in) s = def.in;
    else return s;
  }
}

function defaultOf(field: z.ZodType): string | null {
  const def = field.def as { type: string; defaultValue?: unknown };
  return def.type === "default" && def.defaultValue !== undefined ? String(def.defaultValue) : null;
}
