import type { Dialect } from "../../core/dialects/dialect.ts";
import { UsageError } from "../../core/errors.ts";
import { checkPrintInput, PrintInput } from "../../core/print/input.ts";
import { dialectProvider } from "../../core/worker/default-provider.ts";
import { resolveSchema } from "../../operations/guard/plan.ts";
import { withDefaultProvider } from "../../operations/worker/user-config.ts";
import { formatIssues } from "../cli/args.ts";
import type { PrintIo } from "./io.ts";

/**
 * PrintInput from a dialect's raw flags: zod decides what the values mean, the provider not given is
 * the default (UMBEL_PROVIDER, else config.toml's, else the dialect's own CLI: `umbel exec` runs
 * codex, gemini -p's dialect gemini), then the rules between the flags.
 */
export async function parseInput(
  raw: Record<string, unknown>,
  io: PrintIo,
  dialect: Dialect,
): Promise<PrintInput> {
  const parsed = PrintInput.safeParse(raw);
  if (!parsed.success) throw new UsageError(formatIssues(parsed.error), { issues: parsed.error.issues });
  const input = await withDefaultProvider(io.deps, parsed.data, dialectProvider(dialect));
  checkPrintInput(input);
  // Checked before a worker is made (claude -p refuses a bad schema before it starts, too).
  if (input.jsonSchema !== undefined) input.jsonSchema = await resolveSchema(io.deps, input.jsonSchema);
  return input;
}
