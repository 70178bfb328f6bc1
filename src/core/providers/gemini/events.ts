import { stringAt } from "../../common/json.ts";
import { topLevel } from "../../fleet/notify.ts";
import { snakeSessionStart } from "../hook-wire.ts";
import type { HookEvent, NotifyRule, Stall, StallInput, TurnSignal } from "../types.ts";

/**
 * gemini-cli 0.61.0's hook payloads as turn signals (docs/providers.md). Per prompt:
 * BeforeAgent → [BeforeModel → BeforeTool → Notification(ToolPermission) → AfterTool]* → AfterAgent.
 * - BeforeAgent proves the prompt was taken. gemini has no prompt id; its `timestamp` (gemini's
 *   clock, ms) is the turn key that finds the turn's line in the transcript (parseGeminiAnswer).
 * - AfterAgent ends the turn: after an answer, an API error, an Escape, or "Stop" on a quota dialog.
 *   Which one it was is in the transcript, never in `prompt_response` (mangled). So it is a "stop"
 *   with no message, and the engine asks the transcript (transcriptTurnEnd).
 * - A denied tool (Esc or "No") and a "Keep trying / Stop" dialog fire nothing; retries that never
 *   end fire only BeforeModel markers (assessStall).
 */
export function interpretGeminiEvent(event: HookEvent): TurnSignal {
  const p = event.payload;
  const str = (key: string): string | null => stringAt(p, key);
  switch (event.name) {
    case "SessionStart":
      return snakeSessionStart(p);
    case "BeforeAgent":
      return { kind: "submitted", promptId: str("timestamp"), prompt: str("prompt"), human: true };
    case "AfterAgent":
      return { kind: "stop", promptId: null, message: null, backgroundTasks: [] };
    case "Notification":
      if (str("notification_type") !== "ToolPermission") return { kind: "ignore" };
      return { kind: "input", text: describePermission(p), detail: "permission" };
    case "BeforeTool":
    case "AfterTool":
    case "BeforeModel":
      return { kind: "progress" };
    case "SessionEnd":
      return { kind: "session-end", reason: str("reason") ?? "" };
    default:
      return { kind: "ignore" };
  }
}

/** `Shell: touch x.txt`, `Edit: notes.txt`, else the notification's message. */
function describePermission(payload: Readonly<Record<string, unknown>>): string {
  const details = payload.details;
  const message = typeof payload.message === "string" ? payload.message : "ToolPermission";
  if (!details || typeof details !== "object") return message;
  const d = details as Record<string, unknown>;
  if (typeof d.command === "string") return `Shell: ${d.command}`;
  if (typeof d.filePath === "string" || typeof d.fileName === "string")
    return `Edit: ${String(d.fileName ?? d.filePath)}`;
  if (typeof d.title === "string") return d.title;
  return message;
}

/**
 * gemini-cli retries a 5xx, a 429 without a daily quota, or an unreachable server for ever (10
 * attempts ~5 s to 30 s apart, then its fallback resets the count), showing only its spinner and
 * firing only BeforeModel. A healthy turn writes the transcript or fires a tool hook between two
 * model calls; so two or more model calls with no progress between them, for longer than
 * RETRY_STALL_MS, is a provider error (measured: a 500 retried at +6.6 s, +17 s, +36 s).
 */
const GEMINI_RETRY_STALL_MS = 90_000;
/** A turn that recovers does so within a few retries: 500 twice then OK answered 15.8 s after Enter. */
const GEMINI_MIN_RETRIES = 2;

/** Model calls since the last other event; stalled once they are retries that went on too long. */
export function assessRetryStall(input: StallInput): Stall {
  let attempts = 0;
  for (const event of input.events) attempts = event.name === "BeforeModel" ? attempts + 1 : 0;
  const sinceMs = input.now - input.lastProgressAt;
  const limit = input.stallMs ?? GEMINI_RETRY_STALL_MS;
  if (!input.busy || attempts < GEMINI_MIN_RETRIES || sinceMs < limit) return { stalled: false, attempts };
  const seconds = Math.round(sinceMs / 1000);
  return {
    stalled: true,
    attempts,
    sinceMs,
    error: `gemini retried the model request ${attempts} times over ${seconds}s without an answer (server error, rate limit or unreachable server)`,
  };
}

/**
 * `spawn --notify` on gemini 0.61.0: AfterAgent ends answers, API errors and Escapes alike (the hook
 * cannot tell them apart: all notify stop; wait reads which from the transcript), and the
 * ToolPermission notification asks a person.
 */
export const GEMINI_NOTIFY_RULES: readonly NotifyRule[] = [
  { event: "AfterAgent", reason: "stop" },
  { event: "Notification", reason: "input", must: topLevel('"notification_type":"ToolPermission"') },
];
