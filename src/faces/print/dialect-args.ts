import { quoteArg } from "../../core/common/quote.ts";
import { UsageError } from "../../core/errors.ts";
import { parseEnvFlags } from "../../core/worker/env.ts";

/**
 * argv as claude's (commander), gemini's (yargs) and codex's (clap) parsers read it, for the flags
 * umbel mirrors: `--flag value`, `--flag=value`, `-f value`; `--` ends the options. "optional" takes
 * the next argument unless it is an option (gemini's `-p` and `-r` take an empty value so);
 * "variadic" takes every following argument up to the next option, at least one (claude's
 * `--allowedTools a b`); "repeat" keeps every value. A flag of the CLI umbel does not mirror is
 * named in its own error, and one it refuses on purpose gets its reason.
 */
export type FlagKind = "flag" | "value" | "optional" | "variadic" | "repeat";
export type FlagSpec = { readonly key: string; readonly kind: FlagKind };

export type DialectArgs = {
  readonly values: Readonly<Record<string, readonly string[]>>;
  readonly flags: ReadonlySet<string>;
  readonly positionals: readonly string[];
};

export function parseDialectArgv(
  argv: readonly string[],
  specs: Readonly<Record<string, FlagSpec>>,
  refuse: {
    readonly notMirrored: ReadonlySet<string>;
    readonly cli: string;
    readonly help: string;
    /** The error for a flag not mirrored (default: `<cli> does not support <flag> (see <help>)`). */
    readonly notMirroredError?: (flag: string) => string;
    /** Flags refused on purpose, with the reason that is their error. */
    readonly refused?: Readonly<Record<string, string>>;
  },
): DialectArgs {
  const values: Record<string, string[]> = {};
  const flags = new Set<string>();
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1));
      break;
    }
    if (!arg.startsWith("-") || arg === "-") {
      positionals.push(arg);
      continue;
    }
    const eq = arg.startsWith("--") ? arg.indexOf("=") : -1;
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    const spec = specs[flag];
    if (!spec) {
      const refused = refuse.refused?.[flag];
      if (refused) throw new UsageError(refused, { flag });
      if (refuse.notMirrored.has(flag))
        throw new UsageError(
          refuse.notMirroredError?.(flag) ?? `${refuse.cli} does not support ${flag} (see ${refuse.help})`,
          { flag },
        );
      throw new UsageError(`unknown option '${quoteArg(flag)}' (see ${refuse.help})`, { flag });
    }
    const list = values[spec.key] ?? [];
    values[spec.key] = list;
    if (spec.kind === "flag") {
      if (eq > 0) throw new UsageError(`option '${flag}' takes no value`, { flag });
      flags.add(spec.key);
    } else if (eq > 0) {
      list.push(arg.slice(eq + 1));
    } else if (spec.kind === "variadic") {
      const start = list.length;
      while (i + 1 < argv.length && !isOption(argv[i + 1] ?? "")) list.push(argv[++i] ?? "");
      if (list.length === start) throw new UsageError(`option '${flag}' argument missing`, { flag });
    } else if (spec.kind === "optional") {
      const next = argv[i + 1];
      list.push(next !== undefined && !isOption(next) ? (argv[++i] ?? "") : "");
    } else {
      if (i + 1 >= argv.length) throw new UsageError(`option '${flag}' argument missing`, { flag });
      list.push(argv[++i] ?? "");
    }
  }
  return { values, flags, positionals };
}

/** The last value given for `key` (a repeated single-value flag: the last wins). */
export function lastValue(args: DialectArgs, key: string): string | undefined {
  return args.values[key]?.at(-1);
}

/** umbel's own flags, spelled alike in every dialect (the guardrails', the worker's, the wait's). */
export const UMBEL_FLAGS: Readonly<Record<string, FlagSpec>> = {
  "--provider": { key: "provider", kind: "value" },
  "--env": { key: "env", kind: "repeat" },
  "--timeout": { key: "timeout", kind: "value" },
  "--start-timeout": { key: "startTimeout", kind: "value" },
  "--idle-timeout": { key: "idleTimeout", kind: "value" },
  "--name": { key: "name", kind: "value" },
  "--accept": { key: "accept", kind: "repeat" },
  "--max-attempts": { key: "maxAttempts", kind: "value" },
  "--accept-timeout": { key: "acceptTimeout", kind: "value" },
  "--max-tokens": { key: "maxTokens", kind: "value" },
  "--on-limit": { key: "onLimit", kind: "value" },
  "--account": { key: "account", kind: "value" },
};

/** umbel's own flags as raw PrintInput fields (zod decides what the values mean). */
export function umbelRaw(args: DialectArgs): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  for (const key of [
    "provider",
    "timeout",
    "startTimeout",
    "idleTimeout",
    "name",
    "acceptTimeout",
    "onLimit",
    "account",
  ]) {
    const value = lastValue(args, key);
    if (value !== undefined) raw[key] = value;
  }
  for (const key of ["maxAttempts", "maxTokens"]) {
    const value = lastValue(args, key);
    // A count as a number; anything else goes on as text for zod to refuse.
    if (value !== undefined) raw[key] = /^\d+$/.test(value) ? Number(value) : value;
  }
  if (args.values.accept) raw.accept = [...args.values.accept];
  if (args.values.env) raw.env = parseEnvFlags([...args.values.env]);
  return raw;
}

function isOption(arg: string): boolean {
  return arg.startsWith("-") && arg !== "-";
}
