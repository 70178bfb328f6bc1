import type { Outcome } from "./outcome.ts";

/** One line for stderr / the json result when the turn did not end in a stop. */
export function describeFailure(outcome: Outcome, text: string): string {
  const e = outcome.evidence;
  switch (outcome.reason) {
    case "provider-error":
      return e.message ?? text ?? `provider error: ${e.error ?? "unknown"}`;
    case "limited":
      return e.message ?? e.limit?.message ?? (text || "a usage limit stopped the turn");
    case "input":
      return `the worker needs input: ${e.prompt ?? "a prompt is waiting"}`;
    case "timeout":
      return `timed out after ${Math.round((e.timeoutMs ?? outcome.elapsedMs) / 1000)}s`;
    case "idle":
      return "the worker went idle without finishing the turn";
    case "dead":
      return `the worker died${e.exit?.signal ? ` (signal ${e.exit.signal})` : e.exit?.exitCode !== undefined ? ` (exit ${e.exit.exitCode})` : ""}`;
    case "aborted":
      return "interrupted";
    case "rejected":
      return e.detail ?? "the guardrails did not hold";
    default:
      return text;
  }
}
