import { stringAt } from "../../common/json.ts";
import { POLICY_MARK } from "../../fleet/notify.ts";
import { snakeSessionStart } from "../hook-wire.ts";
import type { HookEvent, NotifyRule, TurnSignal } from "../types.ts";
import type { CodexTurnEnd } from "./transcript.ts";

export function interpretCodexEvent(event: HookEvent): TurnSignal {
  const p = event.payload;
  const str = (key: string): string | null => stringAt(p, key);
  switch (event.name) {
    case "SessionStart":
      return snakeSessionStart(p);
    case "UserPromptSubmit":
      return { kind: "submitted", promptId: str("turn_id"), prompt: str("prompt"), human: true };
    case "Stop":
      return {
        kind: "stop",
        promptId: str("turn_id"),
        message: str("last_assistant_message"),
        backgroundTasks: [],
      };
    case "Interrupt":
      return { kind: "interrupted", promptId: str("turn_id") };
    case "PermissionRequest":
      return { kind: "input", text: describeTool(str("tool_name"), p.tool_input), detail: "permission" };
    case "PreToolUse":
    case "PostToolUse":
      return { kind: "progress" };
    case "SessionEnd":
      return { kind: "session-end", reason: str("reason") ?? "" };
    default:
      return { kind: "ignore" };
  }
}

/** What the transcript says about the turn, as a signal (null while the turn runs). */
export function turnEndSignal(end: CodexTurnEnd): TurnSignal | null {
  switch (end.status) {
    case "running":
      return null;
    case "complete":
      return { kind: "stop", promptId: end.turnId, message: end.message, backgroundTasks: [] };
    case "failed":
      return { kind: "failure", promptId: end.turnId, error: end.errorKind, message: end.error };
    case "aborted":
      return { kind: "interrupted", promptId: end.turnId };
  }
}

/** `Bash: touch x (Need to touch a file outside the sandbox?)`, `apply_patch: *** Begin Patch…`. */
function describeTool(name: string | null, input: unknown): string {
  const tool = name ?? "tool";
  if (!input || typeof input !== "object") return tool;
  const i = input as Record<string, unknown>;
  if (typeof i.command !== "string") return `${tool}: ${JSON.stringify(input)}`;
  const why = typeof i.description === "string" ? ` (${i.description})` : "";
  return `${tool}: ${i.command}${why}`;
}

/**
 * `spawn --notify` on codex 0.171.0: Stop, Interrupt (an aborted turn: stop, interrupted), and a
 * PermissionRequest the policy did not answer. A failed turn fires no hook at all, so it notifies
 * nothing (wait reads it from the rollout).
 */
export const CODEX_NOTIFY_RULES: readonly NotifyRule[] = [
  { event: "Stop", reason: "stop" },
  { event: "Interrupt", reason: "stop" },
  { event: "PermissionRequest", reason: "input", never: POLICY_MARK },
];
