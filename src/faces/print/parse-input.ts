import { UsageError } from "../../core/errors.ts";
import { checkPrintInput, PrintInput } from "../../core/print-input.ts";
import { resolveSchema } from "../../operations/guard-plan.ts";
import { formatIssues } from "../cli/args.ts";
import type { PrintIo } from "./flow.ts";

/** PrintInput from a dialect's raw flags: zod decides what the values mean, then the rules between them. */
export async function parseInput(raw: Record<string, unknown>, io: PrintIo): Promise<PrintInput> {
  const parsed = PrintInput.safeParse(raw);
  if (!parsed.success) throw new UsageError(formatIssues(parsed.error), { issues: parsed.error.issues });
  checkPrintInput(parsed.data);
  // Checked before a worker is made (claude -p refuses a bad schema before it starts, too).
  if (parsed.data.jsonSchema !== undefined)
    parsed.data.jsonSchema = await resolveSchema(io.deps, parsed.data.jsonSchema);
  return parsed.data;
}
