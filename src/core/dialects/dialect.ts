import { z } from "zod";
import { quoteArg } from "../common/quote.ts";
import { didYouMean } from "../common/suggest.ts";
import { UsageError } from "../errors.ts";

/**
 * Whose non-interactive mode `umbel -p` mirrors: its flags (spelling and meaning), its output and its
 * exit codes. Independent of the provider: any provider's turn prints in any dialect.
 */
export const Dialect = z
  .enum(["claude", "gemini", "codex"])
  .describe("The CLI whose non-interactive mode -p mirrors: claude -p, gemini -p or codex exec");
export type Dialect = z.infer<typeof Dialect>;

/** The variable that sets the default dialect of `umbel -p` (`--dialect` wins). */
export const DIALECT_ENV = "UMBEL_DIALECT";

/**
 * Takes `--dialect X` / `--dialect=X` out of argv (options before `--` only; the last one wins), so
 * each dialect's own parser sees only its CLI's flags. Without the flag, UMBEL_DIALECT; else claude.
 */
export function takeDialect(
  argv: readonly string[],
  fromEnv: string | undefined,
): { dialect: Dialect; argv: string[] } {
  const rest: string[] = [];
  let given: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? "";
    if (arg === "--") {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === "--dialect") {
      if (i + 1 >= argv.length) throw new UsageError("option '--dialect' argument missing", { flag: arg });
      given = argv[++i];
    } else if (arg.startsWith("--dialect=")) given = arg.slice("--dialect=".length);
    else rest.push(arg);
  }
  if (given !== undefined) return { dialect: parseDialect(given, "--dialect"), argv: rest };
  if (fromEnv !== undefined && fromEnv !== "")
    return { dialect: parseDialect(fromEnv, DIALECT_ENV), argv: rest };
  return { dialect: "claude", argv: rest };
}

function parseDialect(value: string, source: string): Dialect {
  const parsed = Dialect.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new UsageError(
    `${source} ${quoteArg(value)}: must be one of ${Dialect.options.join(", ")}${didYouMean(value, Dialect.options)}`,
    source === DIALECT_ENV ? { variable: source } : { flag: source },
  );
}
