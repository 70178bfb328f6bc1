import type { ArgsDef } from "citty";
import type { z } from "zod";
import { quoteArg } from "../../core/common/quote.ts";
import { didYouMean } from "../../core/common/suggest.ts";
import { UsageError } from "../../core/errors.ts";
import { parseEnvFlags } from "../../core/worker/env.ts";

/**
 * citty reads the flags; the concept's zod schema decides what they mean. Flags are derived from the
 * schema's fields (camelCase field → --kebab-case flag, description → help), so the CLI, MCP and YAML
 * faces cannot drift apart.
 */
type AnyObject = z.ZodObject<z.ZodRawShape>;

const ENV_HELP =
  "Environment for the worker: NAME=VALUE, or NAME alone to copy NAME from umbel's own environment (secrets stay off every command line and out of every file); repeatable";

type Kind = "string" | "boolean" | "number" | "array" | "env";

export function argsFromSchema(schema: AnyObject, positionals: readonly string[] = []): ArgsDef {
  const args: ArgsDef = {};
  for (const [key, f] of Object.entries(schema.shape)) {
    const field = f as z.ZodType;
    const description = describe(field);
    if (positionals.includes(key)) {
      // zod, not citty, reports a missing one (so stdin can stand in for the prompt).
      args[key] = { type: "positional", description, required: false };
      continue;
    }
    const kind = kindOf(field);
    args[kebab(key)] =
      kind === "boolean"
        ? { type: "boolean", description }
        : kind === "env"
          ? { type: "string", description: ENV_HELP, valueHint: "NAME=VALUE|NAME" }
          : { type: "string", description: kind === "array" ? `${description} (repeatable)` : description };
  }
  return args;
}

/**
 * The schema's input built from citty's parsed args plus the raw argv (for repeated flags). A
 * problem with a field taken by position is named as the synopsis names it (`NAME: …`).
 */
export function inputFromArgs<S extends AnyObject>(
  schema: S,
  args: Record<string, unknown>,
  rawArgs: readonly string[],
  positionals: readonly string[] = [],
): z.infer<S> {
  const raw: Record<string, unknown> = {};
  for (const [key, f] of Object.entries(schema.shape)) {
    const field = f as z.ZodType;
    const kind = kindOf(field);
    if (kind === "array" || kind === "env") {
      const given = args[key];
      if (Array.isArray(given)) {
        raw[key] = given; // already a list (positional keys)
        continue;
      }
      const values = collectFlag(rawArgs, key);
      if (values.length === 0) continue;
      // Tool lists split on commas and spaces (claude's spelling); paths and JSON values never do.
      raw[key] =
        kind === "env" ? parseEnvFlags(values) : key.endsWith("Tools") ? values.flatMap(splitList) : values;
      continue;
    }
    const value = args[key] ?? args[kebab(key)];
    // An empty value (`--cwd ""`, `--model=`) is the schema's to refuse, never silently dropped.
    if (value === undefined) continue;
    if (kind === "boolean") {
      if (value === true || value === false) {
        // citty sets false for `--no-x` and leaves absent flags undefined; keep only what was given.
        if (value || rawArgs.some((a) => a === `--no-${kebab(key)}`)) raw[key] = value;
      }
      continue;
    }
    raw[key] =
      kind === "number" && typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success)
    throw new UsageError(formatIssues(parsed.error, positionals), { issues: parsed.error.issues });
  return parsed.data;
}

/** zod's issues as one line: each names its flag (`--cwd: …`), or its positional (`NAME: …`). */
export function formatIssues(error: z.ZodError, positionals: readonly string[] = []): string {
  return error.issues
    .map((issue) => {
      const field = issue.path.length > 0 ? String(issue.path[0]) : "";
      const message = isEmptyString(issue) ? "must not be empty" : issue.message;
      if (field === "") return message;
      return `${positionals.includes(field) ? positionalLabel(field) : `--${kebab(field)}`}: ${message}`;
    })
    .join("; ");
}

/** How --help's synopsis names a positional: `NAME`, `KEYS` (faces/cli/flags.ts reads this too). */
export function positionalLabel(key: string): string {
  return key.toUpperCase();
}

/** zod's "Too small: expected string to have >=1 characters", said plainly. */
function isEmptyString(issue: z.core.$ZodIssue): boolean {
  return issue.code === "too_small" && issue.origin === "string" && Number(issue.minimum) === 1;
}

/** All values of --flag / --flag=value (camelCase or kebab-case spelling). */
function collectFlag(rawArgs: readonly string[], key: string): string[] {
  const names = new Set([`--${key}`, `--${kebab(key)}`]);
  const values: string[] = [];
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i] ?? "";
    if (arg === "--") break;
    const eq = arg.indexOf("=");
    if (eq > 0 && names.has(arg.slice(0, eq))) values.push(arg.slice(eq + 1));
    else if (names.has(arg) && i + 1 < rawArgs.length) values.push(rawArgs[++i] ?? "");
  }
  return values;
}

/** "Bash(git diff:*) Edit,Write" → ["Bash(git diff:*)", "Edit", "Write"]: split outside parentheses. */
export function splitList(value: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of value) {
    if (ch === "(") depth++;
    if (ch === ")") depth = Math.max(0, depth - 1);
    if (depth === 0 && (ch === "," || ch === " ")) {
      if (current.trim()) out.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) out.push(current.trim());
  return out;
}

export function kebab(key: string): string {
  return key.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

function describe(field: z.ZodType): string {
  let s: z.ZodType | undefined = field;
  while (s) {
    if (s.description) return s.description;
    s = inner(s);
  }
  return "";
}

function inner(s: z.ZodType): z.ZodType | undefined {
  const def = s.def as { type: string; innerType?: z.ZodType; in?: z.ZodType };
  if (def.type === "optional" || def.type === "default" || def.type === "nullable") return def.innerType;
  if (def.type === "pipe") return def.in;
  return undefined;
}

function kindOf(field: z.ZodType): Kind {
  let s: z.ZodType = field;
  for (let next = inner(s); next && (s.def as { type: string }).type !== "pipe"; next = inner(s)) s = next;
  const type = (s.def as { type: string }).type;
  if (type === "boolean") return "boolean";
  if (type === "number") return "number";
  if (type === "array") return "array";
  if (type === "record") return "env";
  return "string";
}

type FlagDefs = Record<string, { type?: string; alias?: string | string[] }>;

/**
 * `--base -h`: a flag that takes a value, followed by something that looks like a flag, is a usage
 * error saying how to give such a value (`--base=-h`) — citty would read `-h` as a flag, and the
 * help it asks for printed spawn's help and exited 0, spawning nothing (issue 22). A negative
 * number and `-` (stdin) stay values; nothing after `--` is looked at.
 */
export function refuseFlagLikeValues(rawArgs: readonly string[], defs: FlagDefs): void {
  const valued = new Set<string>();
  for (const [key, def] of Object.entries(defs)) {
    if (def.type === "positional" || def.type === "boolean") continue;
    for (const name of [key, kebab(key), ...[def.alias ?? []].flat()]) valued.add(name);
  }
  for (let i = 0; i < rawArgs.length; i++) {
    const arg = rawArgs[i] ?? "";
    if (arg === "--") return;
    const m = /^--?([^=]+)$/.exec(arg);
    if (!m || !valued.has(m[1] ?? "")) continue;
    const next = rawArgs[i + 1];
    if (next !== undefined && !(next.startsWith("-") && next !== "-" && !/^-\d/.test(next))) {
      i++;
      continue;
    }
    const shown = quoteArg(arg);
    throw new UsageError(
      next === undefined
        ? `${shown} takes a value (${shown}=VALUE; see --help)`
        : `${shown} takes a value, and ${quoteArg(next)} looks like a flag: give it as ${shown}=${quoteArg(next)} (see --help)`,
      { flag: arg, value: next ?? null },
    );
  }
}

/** -h or --help as a flag: not a value (refuseFlagLikeValues has refused those) and not after `--`. */
export function asksForHelp(rawArgs: readonly string[]): boolean {
  const end = rawArgs.indexOf("--");
  return (end < 0 ? rawArgs : rawArgs.slice(0, end)).some((a) => a === "--help" || a === "-h");
}

/** citty ignores flags it does not know; a typo'd flag must be an error, not silently dropped. */
export function rejectUnknownFlags(rawArgs: readonly string[], defs: FlagDefs): void {
  refuseFlagLikeValues(rawArgs, defs);
  const known = new Set<string>(["help", "h"]);
  const switches = new Set<string>(["help", "h"]);
  for (const [key, def] of Object.entries(defs)) {
    if (def.type === "positional") continue;
    for (const name of [key, kebab(key), ...[def.alias ?? []].flat()]) {
      known.add(name);
      if (def.type !== "boolean") continue;
      for (const n of [name, `no-${name}`]) {
        known.add(n);
        switches.add(n);
      }
    }
  }
  for (const arg of rawArgs) {
    if (arg === "--") break;
    const m = /^--?([^=]+)/.exec(arg);
    if (!m || arg === "-" || /^-\d/.test(arg)) continue;
    const flag = m[1] ?? "";
    const shown = quoteArg(arg.split("=")[0] ?? arg);
    if (!known.has(flag)) {
      const names = [...known].filter((k) => k.length > 1 && !/[A-Z]/.test(k)).map((k) => `--${k}`);
      const near = didYouMean(`--${flag}`, names);
      throw new UsageError(`unknown flag ${shown}${near} (see --help)`, { flag: arg });
    }
    // citty reads `--follow=2` as --follow: a value given to a switch is a mistake, not a yes.
    if (switches.has(flag) && arg.includes("="))
      throw new UsageError(`${shown} takes no value (see --help)`, { flag: arg });
  }
}
