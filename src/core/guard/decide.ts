import { formatDuration } from "../common/duration.ts";
import FEEDBACK from "./feedback.md" with { type: "text" };
import { schemaMismatchText } from "./json-schema.ts";
import type { CheckRun, GuardRecord, StructuredCheck } from "./record.ts";

/**
 * What a guarded turn's checks mean: pass, another attempt with feedback, or rejected. The rules for
 * structured output are claude -p's (2.1.332, measured: docs/providers.md): a turn that ends without
 * a StructuredOutput call gets one enforce message (once per request); five invalid calls end it.
 */

/** claude -p's user message when a turn ends without calling StructuredOutput. */
export const ENFORCE_TEXT =
  "[structured-output-enforce] You MUST call the StructuredOutput tool to complete this request. Call this tool now.";

/** claude -p gives up (error_max_structured_output_retries) after this many invalid calls. */
export const MAX_INVALID_CALLS = 5;

/** The feedback quotes at most this much of a failed check's output (its end). */
export const OUTPUT_TAIL_BYTES = 4096;

export type Findings = { readonly structured?: StructuredCheck; readonly checks: readonly CheckRun[] };

export type Verdict =
  | { kind: "pass" }
  | { kind: "retry"; feedback: string; enforce: boolean }
  | { kind: "rejected"; detail: string };

/** The verdict on the record's current attempt (its last turn) from what its checks found. */
export function decideAttempt(record: GuardRecord, findings: Findings): Verdict {
  const attempt = record.turns.length;
  const last = attempt >= record.maxAttempts;
  const s = findings.structured;
  if (s && !s.ok) {
    if (s.rejected >= MAX_INVALID_CALLS) return { kind: "rejected", detail: structuredRetriesText(s) };
    if (record.enforced || last)
      return {
        kind: "rejected",
        detail:
          s.rejected > 0
            ? `no valid structured output: ${schemaMismatchText(s.errors)}`
            : "the turn ended without calling StructuredOutput",
      };
    return { kind: "retry", feedback: ENFORCE_TEXT, enforce: true };
  }
  const failed = findings.checks.find((check) => !checkPassed(check));
  if (!failed) return { kind: "pass" };
  if (last)
    return {
      kind: "rejected",
      detail: `the accept check \`${failed.command}\` ${checkStatus(failed)} (attempt ${attempt} of ${record.maxAttempts})`,
    };
  return { kind: "retry", feedback: renderFeedback(record, failed), enforce: false };
}

/** claude -p's error once structured output has run out of retries. */
function structuredRetriesText(s: Pick<StructuredCheck, "rejected" | "errors">): string {
  return `Failed to provide valid structured output after ${s.rejected} attempts — last StructuredOutput error: ${schemaMismatchText(s.errors)}`;
}

export function checkPassed(check: CheckRun): boolean {
  return check.exitCode === 0 && !check.timedOut;
}

/** The feedback prompt for a failed accept check (the template is feedback.md). */
export function renderFeedback(
  record: Pick<GuardRecord, "turns" | "maxAttempts" | "jsonSchema">,
  check: CheckRun,
): string {
  const fields: Record<string, string> = {
    command: check.command,
    status: checkStatus(check),
    next: String(record.turns.length + 1),
    max: String(record.maxAttempts),
    structured: record.jsonSchema ? " Call the StructuredOutput tool again with your final result." : "",
    output: check.output.trimEnd() || "(no output)",
  };
  return FEEDBACK.trimEnd().replace(/\{(\w+)\}/g, (whole, key: string) => fields[key] ?? whole);
}

function checkStatus(check: CheckRun): string {
  if (check.timedOut) return `timed out after ${formatDuration(Math.round(check.durationMs))}`;
  if (check.exitCode !== null) return `exited with code ${check.exitCode}`;
  return `was ended by signal ${check.signal ?? "unknown"}`;
}
