import { parseEnvFlags } from "../../core/worker/env.ts";
import { splitList } from "../cli/args.ts";
import { type DialectArgs, type FlagSpec, parseDialectArgv } from "./dialect-args.ts";

/**
 * argv of `umbel -p` as claude's CLI (commander) reads it: `--flag value` or `--flag=value`;
 * variadic flags (`--allowedTools a b`, `--add-dir`, `--mcp-config`) take every following argument
 * up to the next option, as claude's do; `--` ends the options. The result is raw input for
 * PrintInput (zod decides what the values mean).
 */
const SPECS: Record<string, FlagSpec> = {
  "-p": { key: "print", kind: "flag" },
  "--print": { key: "print", kind: "flag" },
  "-h": { key: "help", kind: "flag" },
  "--help": { key: "help", kind: "flag" },
  "--output-format": { key: "outputFormat", kind: "value" },
  "--input-format": { key: "inputFormat", kind: "value" },
  "--verbose": { key: "verbose", kind: "flag" },
  "--model": { key: "model", kind: "value" },
  "--allowedTools": { key: "allowedTools", kind: "variadic" },
  "--allowed-tools": { key: "allowedTools", kind: "variadic" },
  "--disallowedTools": { key: "disallowedTools", kind: "variadic" },
  "--disallowed-tools": { key: "disallowedTools", kind: "variadic" },
  "--permission-mode": { key: "permissionMode", kind: "value" },
  "--dangerously-skip-permissions": { key: "skipPermissions", kind: "flag" },
  "--system-prompt": { key: "systemPrompt", kind: "value" },
  "--append-system-prompt": { key: "appendSystemPrompt", kind: "value" },
  "--max-turns": { key: "maxTurns", kind: "value" },
  "--max-budget-usd": { key: "maxBudgetUsd", kind: "value" },
  "--max-tokens": { key: "maxTokens", kind: "value" },
  "--on-limit": { key: "onLimit", kind: "value" },
  "--account": { key: "account", kind: "value" },
  "-c": { key: "continue", kind: "flag" },
  "--continue": { key: "continue", kind: "flag" },
  "-r": { key: "resume", kind: "value" },
  "--resume": { key: "resume", kind: "value" },
  "--add-dir": { key: "addDir", kind: "variadic" },
  "--settings": { key: "settings", kind: "value" },
  "--mcp-config": { key: "mcpConfig", kind: "variadic" },
  "--provider": { key: "provider", kind: "value" },
  "--cwd": { key: "cwd", kind: "value" },
  "--env": { key: "env", kind: "repeat" },
  "--timeout": { key: "timeout", kind: "value" },
  "--start-timeout": { key: "startTimeout", kind: "value" },
  "--idle-timeout": { key: "idleTimeout", kind: "value" },
  "--name": { key: "name", kind: "value" },
  "--json-schema": { key: "jsonSchema", kind: "value" },
  "--accept": { key: "accept", kind: "repeat" },
  "--max-attempts": { key: "maxAttempts", kind: "value" },
  "--accept-timeout": { key: "acceptTimeout", kind: "value" },
};

/** The flags `umbel -p` takes, as claude spells them (shell completion offers them). */
export const PRINT_FLAGS: Readonly<Record<string, FlagSpec>> = SPECS;

/** claude -p flags umbel does not mirror (yet): named in the error instead of "unknown option". */
const NOT_MIRRORED = new Set([
  "--agent",
  "--agents",
  "--betas",
  "--effort",
  "--fallback-model",
  "--fork-session",
  "--include-partial-messages",
  "--no-session-persistence",
  "--permission-prompt-tool",
  "--replay-user-messages",
  "--session-id",
  "--strict-mcp-config",
  "--tools",
]);

/** claude -p flags umbel refuses on purpose, with the reason (docs/limits.md, "Billing"). */
const REFUSED: Record<string, string> = {
  "--bare":
    "umbel -p refuses claude's --bare: it turns hooks off (umbel sees a turn end only through them) and signs in only with an API key, so it would bill the API instead of your subscription",
};

export type PrintArgs = {
  /** Raw input for PrintInput, minus the prompt (stdin is read later). */
  raw: Record<string, unknown>;
  /** Positional arguments joined by a space (claude takes one; a shell may split it). */
  argvPrompt: string;
  /** The --settings value as given: JSON text or a file path. */
  settings: string | undefined;
  help: boolean;
  /** -p/--print was given as a flag (not, say, taken as the value of `--model -p`). */
  print: boolean;
};

export function parsePrintArgs(argv: readonly string[]): PrintArgs {
  const args = parseDialectArgv(argv, SPECS, {
    notMirrored: NOT_MIRRORED,
    cli: "claude",
    help: "umbel -p --help",
    notMirroredError: (flag) => `umbel -p does not support claude's ${flag}`,
    refused: REFUSED,
  });
  return { ...shape(args), argvPrompt: args.positionals.join(" ") };
}

function shape({ values, flags }: DialectArgs): Omit<PrintArgs, "argvPrompt"> {
  const raw: Record<string, unknown> = {};
  const last = (key: string) => values[key]?.at(-1);
  for (const key of [
    "outputFormat",
    "inputFormat",
    "model",
    "permissionMode",
    "systemPrompt",
    "appendSystemPrompt",
    "resume",
    "provider",
    "cwd",
    "timeout",
    "startTimeout",
    "idleTimeout",
    "name",
    "jsonSchema",
    "acceptTimeout",
    "onLimit",
    "account",
  ]) {
    const value = last(key);
    if (value !== undefined) raw[key] = value;
  }
  for (const key of ["maxTurns", "maxAttempts", "maxTokens"]) {
    const value = last(key);
    if (value !== undefined) raw[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  if (values.accept) raw.accept = values.accept;
  const budget = last("maxBudgetUsd");
  // A number as claude reads it (1e-7 included); anything else goes on as text for zod to refuse.
  if (budget !== undefined)
    raw.maxBudgetUsd = budget.trim() !== "" && Number.isFinite(Number(budget)) ? Number(budget) : budget;
  for (const key of ["allowedTools", "disallowedTools"]) {
    const list = values[key];
    if (list) raw[key] = list.flatMap(splitList);
  }
  for (const key of ["addDir", "mcpConfig"]) if (values[key]) raw[key] = values[key];
  if (values.env) raw.env = parseEnvFlags(values.env);
  if (flags.has("verbose")) raw.verbose = true;
  if (flags.has("continue")) raw.continue = true;
  if (flags.has("skipPermissions")) raw.permissionMode = "bypassPermissions";
  return { raw, settings: last("settings"), help: flags.has("help"), print: flags.has("print") };
}
