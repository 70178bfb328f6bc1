import { parseJsonObject } from "../../common/json.ts";
import type { TranscriptAnswer } from "../transcript-types.ts";

/**
 * Reading a codex rollout file (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<session>.jsonl`,
 * codex-cli 0.171.0). Each line is `{timestamp, ordinal, type, payload}`; a line being appended
 * while we read is skipped (the next read sees it whole).
 *
 * - The answer of turn T is the last `response_item` message with role assistant whose
 *   `internal_chat_message_metadata_passthrough.turn_id` is T, its `output_text` parts joined.
 *   A turn can hold several (a retried stream keeps its partial message), so the last one wins.
 * - The turn's end is an `event_msg` for T: `task_complete` (with `error` when the turn failed) or
 *   `turn_aborted` (interrupted, or an approval denied). A failed turn fires no hook at all, so
 *   this is the only evidence it ended. `task_complete` lands ~15-75 ms after the Stop hook.
 */

export type CodexTurnEnd =
  /** No end marker for the turn yet (or the turn is not in the file). */
  | { readonly status: "running"; readonly turnId: string | null }
  | { readonly status: "complete"; readonly turnId: string; readonly message: string | null }
  /** `task_complete` with `error`: codex_error_info is a string or an object (`{http_connection_failed:…}`). */
  | {
      readonly status: "failed";
      readonly turnId: string;
      readonly error: string;
      readonly errorKind: string;
    }
  | { readonly status: "aborted"; readonly turnId: string; readonly reason: string };

type Line = { type?: unknown; payload?: Record<string, unknown> };

/** How turn T ended, from the transcript; T null means the last turn the file started. */
export function findCodexTurnEnd(transcript: string, turnId: string | null): CodexTurnEnd {
  const lines = parseLines(transcript);
  const turn = turnId ?? lastStartedTurn(lines);
  if (turn === null) return { status: "running", turnId: null };
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = lines[i];
    const p = line?.payload;
    if (line?.type !== "event_msg" || !p || p.turn_id !== turn) continue;
    if (p.type === "turn_aborted") return { status: "aborted", turnId: turn, reason: str(p.reason) ?? "" };
    if (p.type !== "task_complete") continue;
    const error = p.error;
    if (error && typeof error === "object") {
      const e = error as Record<string, unknown>;
      return {
        status: "failed",
        turnId: turn,
        error: str(e.message) ?? "unknown error",
        errorKind: errorKindOf(e.codex_error_info),
      };
    }
    return { status: "complete", turnId: turn, message: str(p.last_agent_message) };
  }
  return { status: "running", turnId: turn };
}

/** The contract's `parseAnswer`: promptId is codex's turn id (UserPromptSubmit / Stop `turn_id`). */
export function parseCodexAnswer(transcript: string, promptId: string | null): TranscriptAnswer {
  const lines = parseLines(transcript);
  const sessionId = findSessionId(lines);
  const turn = promptId ?? lastStartedTurn(lines);
  if (turn === null) return { text: null, complete: false, sessionId, assistantMessages: 0 };
  const messages = lines.filter(
    (l) =>
      l.type === "response_item" &&
      l.payload?.type === "message" &&
      l.payload.role === "assistant" &&
      turnOf(l.payload) === turn,
  );
  let text: string | null = null;
  for (let i = messages.length - 1; i >= 0 && text === null; i--) {
    const parts = outputTexts(messages[i]?.payload?.content);
    if (parts.length > 0) text = parts.join("");
  }
  const end = findCodexTurnEnd(transcript, turn);
  return { text, complete: end.status !== "running", sessionId, assistantMessages: messages.length };
}

function lastStartedTurn(lines: readonly Line[]): string | null {
  for (let i = lines.length - 1; i >= 0; i--) {
    const p = lines[i]?.payload;
    if (lines[i]?.type === "event_msg" && p?.type === "task_started" && typeof p.turn_id === "string")
      return p.turn_id;
  }
  return null;
}

function turnOf(payload: Record<string, unknown>): string | null {
  const meta = payload.internal_chat_message_metadata_passthrough;
  return meta && typeof meta === "object" ? str((meta as Record<string, unknown>).turn_id) : null;
}

function outputTexts(content: unknown): string[] {
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) =>
    part && typeof part === "object" && (part as { type?: unknown }).type === "output_text"
      ? [String((part as { text?: unknown }).text ?? "")]
      : [],
  );
}

function errorKindOf(info: unknown): string {
  if (typeof info === "string") return info;
  if (info && typeof info === "object") return Object.keys(info)[0] ?? "unknown";
  return "unknown";
}

function findSessionId(lines: readonly Line[]): string | null {
  for (const line of lines) {
    if (line.type !== "session_meta") continue;
    return str(line.payload?.session_id) ?? str(line.payload?.id);
  }
  return null;
}

function parseLines(transcript: string): Line[] {
  // a line being appended while we read is skipped
  return transcript.split("\n").flatMap((raw): Line[] => {
    const value = parseJsonObject(raw);
    return value === null ? [] : [value as Line];
  });
}

function str(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
