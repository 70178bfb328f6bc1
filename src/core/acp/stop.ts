import type { StopReason } from "@agentclientprotocol/sdk";
import type { Outcome } from "../wait/outcome.ts";

/**
 * How an ACP prompt ends, from the turn's outcome: a stop is `end_turn` (or `refusal`, when the
 * model's own stop reason was one), umbel's --max-turns halt is `max_turn_requests`, a cancel the
 * client asked for is `cancelled`. Every other outcome is an error the client can branch on: umbel's
 * reason and exit code in `data`, with the evidence (a usage limit's reset time, a dead worker's exit).
 */
export type PromptEnd =
  | { readonly kind: "stop"; readonly stopReason: StopReason }
  | { readonly kind: "error"; readonly message: string; readonly data: PromptErrorData };

export type PromptErrorData = {
  /** umbel's outcome reason (limited, provider-error, dead, timeout, idle, rejected, input). */
  readonly code: string;
  readonly exitCode: number;
  readonly worker: string;
  readonly evidence: Outcome["evidence"];
  /** A usage limit: its window and reset time (also in evidence). */
  readonly limit?: NonNullable<Outcome["evidence"]["limit"]>;
};

/** The JSON-RPC error code of an umbel outcome or error (the server-error range). */
export const UMBEL_ERROR_CODE = -32000;

export type PromptEndInput = {
  readonly outcome: Outcome;
  /** --max-turns stopped the turn (its value), or null. */
  readonly maxTurnsHit: number | null;
  /** The client sent session/cancel for this prompt. */
  readonly cancelled: boolean;
  /** The model's own stop reason for its last message (claude's transcript), or null. */
  readonly modelStopReason: string | null;
};

export function decidePromptEnd(input: PromptEndInput): PromptEnd {
  const { outcome } = input;
  const { reason } = outcome;
  if (input.cancelled && reason !== "dead") return stop("cancelled");
  if (input.maxTurnsHit !== null) return stop("max_turn_requests");
  if (reason === "stop") return stop(input.modelStopReason === "refusal" ? "refusal" : "end_turn");
  // The face's own shutdown (stdin closed, SIGTERM) ends a prompt as a cancel would.
  if (reason === "aborted") return stop("cancelled");
  const limit = outcome.evidence.limit;
  return {
    kind: "error",
    message: describeOutcome(outcome),
    data: {
      code: reason,
      exitCode: outcome.exitCode,
      worker: outcome.name,
      evidence: outcome.evidence,
      ...(limit ? { limit } : {}),
    },
  };
}

function stop(stopReason: StopReason): PromptEnd {
  return { kind: "stop", stopReason };
}

/** One line for the client to show. */
function describeOutcome(outcome: Outcome): string {
  const e = outcome.evidence;
  const name = `worker ${outcome.name}`;
  switch (outcome.reason) {
    case "limited": {
      const reset = e.limit?.resetsAt ? `; it resets at ${e.limit.resetsAt}` : "";
      return e.budget ? `${name}: the turn's budget is spent` : `${name} hit a usage limit${reset}`;
    }
    case "provider-error":
      return `${name}: the provider answered with an error${e.error ? ` (${e.error})` : ""}${e.message ? `: ${e.message}` : ""}`;
    case "dead": {
      const exit = e.exit?.signal
        ? ` (signal ${e.exit.signal})`
        : e.exit?.exitCode !== undefined
          ? ` (exit ${e.exit.exitCode})`
          : "";
      return `${name} died${exit}`;
    }
    case "timeout":
      return `${name}: the turn did not end within ${Math.round((e.timeoutMs ?? 0) / 1000)} s`;
    case "idle":
      return `${name}: nothing moved for ${Math.round((e.stillForMs ?? 0) / 1000)} s`;
    case "rejected":
      return `${name}: the guardrails rejected every attempt`;
    case "input":
      return `${name} needs a person: ${e.prompt ?? "a prompt"}`;
    default:
      return `${name}: ${outcome.reason}`;
  }
}
