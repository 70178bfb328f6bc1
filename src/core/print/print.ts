import type { Outcome } from "../wait/outcome.ts";

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

/**
 * `-p` whose turn met a prompt that needs a person (126): a `--name` worker is kept, so the message
 * says how to answer it and follow the same turn; an anonymous one is removed as -p exits, so it
 * says how to keep the worker next time (docs/cli-reference.md, "When -p needs a person").
 */
export function describeInputEnding(
  outcome: Outcome,
  worker: { readonly name: string; readonly anonymous: boolean },
): string {
  const prompt = outcome.evidence.prompt ?? "a prompt is waiting";
  if (worker.anonymous)
    return `the worker needs input: ${prompt}; an anonymous -p worker is removed as -p exits, so nothing is left to answer: run it again with --name NAME to keep the worker, then \`umbel answer NAME allow --input-id ID\` and \`umbel wait NAME\``;
  const id = outcome.evidence.inputId;
  const answer = `umbel answer ${worker.name} allow${id === undefined ? "" : ` --input-id ${id}`}`;
  return `worker ${worker.name} needs input: ${prompt}; it is kept, so answer it: \`${answer}\` (or always, deny, an option), then \`umbel wait ${worker.name}\` follows the same turn to its end and \`umbel read ${worker.name}\` prints its answer`;
}
