import { isRecord, stringAt } from "../common/json.ts";
import type { HookWire, TurnSignal } from "./types.ts";

/**
 * The hook payload fields claude writes (2.1.332) — `hook_event_name`, `session_id`,
 * `transcript_path`, and a tool call's `tool_name` and `tool_input` —, which codex (0.171.0) and
 * gemini (0.61.0) write too.
 */
export const SNAKE_HOOK_WIRE: HookWire = {
  eventName: (payload) => stringAt(payload, "hook_event_name"),
  sessionId: (payload) => stringAt(payload, "session_id"),
  transcriptPath: (payload) => stringAt(payload, "transcript_path"),
  toolName: (payload) => stringAt(payload, "tool_name"),
  toolInput: (payload) => (isRecord(payload.tool_input) ? payload.tool_input : null),
};

/** SessionStart in those fields: the session and where its transcript is. */
export function snakeSessionStart(payload: Readonly<Record<string, unknown>>): TurnSignal {
  return {
    kind: "session-start",
    sessionId: SNAKE_HOOK_WIRE.sessionId(payload),
    transcriptPath: SNAKE_HOOK_WIRE.transcriptPath(payload),
  };
}
