import { z } from "zod";
import type { Outcome } from "./outcome.ts";
import { Duration, EnvSpec, PermissionMode, ProviderId, WorkerName } from "./schemas.ts";

/** `umbel -p`: the flags of `claude -p` it mirrors, plus umbel's own. */
export const PrintInput = z
  .object({
    prompt: z.string().min(1, "no prompt: give it as an argument or on stdin"),
    outputFormat: z
      .enum(["text", "json"])
      .default("text")
      .describe("text (the answer) or json (claude's result object)"),
    provider: ProviderId.default("claude"),
    model: z.string().min(1).optional().describe("Model to run"),
    allowedTools: z.array(z.string().min(1)).optional().describe("Tools allowed without asking"),
    permissionMode: PermissionMode.optional(),
    cwd: z.string().min(1).optional().describe("Working directory (default: the current directory)"),
    env: EnvSpec.optional(),
    timeout: Duration.optional().describe("Give up after this long (default 30m)"),
    name: WorkerName.optional().describe(
      "Run in the named worker, creating it if needed, and keep it (a warm session)",
    ),
    resume: WorkerName.optional().describe("Continue in this existing named worker"),
  })
  .strict();
export type PrintInput = z.infer<typeof PrintInput>;

export type PrintResult = {
  type: "result";
  subtype: "success" | "error_during_execution";
  is_error: boolean;
  result: string;
  session_id: string | null;
  duration_ms: number;
  num_turns: number;
  umbel: { worker: string; provider: string; outcome: Outcome["reason"]; exitCode: number };
};

/** claude -p --output-format json keys, filled from umbel's outcome and answer. */
export function buildPrintResult(args: {
  outcome: Outcome;
  text: string;
  sessionId: string | null;
  durationMs: number;
  assistantMessages: number;
  provider: string;
}): PrintResult {
  const ok = args.outcome.reason === "stop";
  return {
    type: "result",
    subtype: ok ? "success" : "error_during_execution",
    is_error: !ok,
    result: ok ? args.text : describeFailure(args.outcome, args.text),
    session_id: args.sessionId,
    duration_ms: args.durationMs,
    num_turns: Math.max(1, args.assistantMessages),
    umbel: {
      worker: args.outcome.name,
      provider: args.provider,
      outcome: args.outcome.reason,
      exitCode: args.outcome.exitCode,
    },
  };
}

/** One line for stderr / the json result when the turn did not end in a stop. */
export function describeFailure(outcome: Outcome, text: string): string {
  const e = outcome.evidence;
  switch (outcome.reason) {
    case "provider-error":
      return e.message ?? text ?? `provider error: ${e.error ?? "unknown"}`;
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
    default:
      return text;
  }
}
