import { isRecord, parseJsonObject as parseLine } from "../../common/json.ts";
import type { TranscriptAnswer } from "../transcript-types.ts";

/**
 * gemini-cli 0.61.0's chat recording (`<GEMINI_CLI_HOME>/.gemini/tmp/<slug>/chats/session-*.jsonl`),
 * read by replay, never from AfterAgent's `prompt_response` (chunks joined with spaces and
 * duplicated: "Hello, world. world."). The file is append-only JSONL:
 * - a message line (`id`) inserts, or replaces the earlier line with the same id (a tool call is
 *   written with `content:""`, then again with `toolCalls`);
 * - `{"$set":{"messages":[…]}}` replaces the whole list (after a cancel, an API error, a denied
 *   tool: the failed prompt is rolled back and only the raw lines still show it);
 * - `{"$rewindTo":id}` drops that message and everything after it.
 * After a denied tool gemini even re-appends the whole history under new ids before its `$set`,
 * so "the last user line in the file" is not the turn's prompt. The turn is found by time instead:
 * its user line is the first real prompt written at or after its BeforeAgent hook's `timestamp`
 * (gemini's own clock; the line always follows the hook, 0.1–0.4 s later).
 */

type GeminiTurnStatus = "answered" | "running" | "failed" | "cancelled" | "halted" | "none";

export type GeminiAnswer = TranscriptAnswer & {
  readonly status: GeminiTurnStatus;
  /** The error line's text when the turn failed (`[API Error: …]`). */
  readonly error: string | null;
  /** The turn's prompt as typed (`displayContent` for `@file` prompts). */
  readonly prompt: string | null;
};

export type GeminiMessage = Record<string, unknown> & { id: string; type?: unknown; content?: unknown };
type Raw = { message: GeminiMessage; line: number };

/**
 * The answer of the turn whose BeforeAgent fired at `turnKey` (its payload `timestamp`), or of the
 * last turn when null. The turn's lines are those from its prompt line to the next prompt line in
 * the raw file (a line with an id seen again replaces the earlier one): ids alone cannot follow a
 * turn, since a later denial re-appends every earlier message under a new id. An `error` line in
 * them means the turn failed (gemini rolled the prompt back), an info line "Request cancelled."
 * that it was cancelled (Escape, a denied tool), an info line "Agent execution stopped: …" that a
 * hook halted it (umbel -p --max-turns: AfterTool's `{"continue":false}`; no AfterAgent follows, so
 * this line is the only record of its end). `complete` once the turn is settled: answered with no
 * tool call pending, failed, cancelled or halted.
 */
export function parseGeminiAnswer(transcript: string, turnKey: string | null): GeminiAnswer {
  const { raw, sessionId } = replayGemini(transcript);
  const none = { text: null, complete: false, sessionId, assistantMessages: 0, error: null, prompt: null };
  const own = findTurnLine(raw, turnKey);
  if (own === null) return { ...none, status: "none" };
  const prompt = promptText(own.message);
  const turn = turnMessages(raw, own);
  const error = turn.findLast((message) => message.type === "error");
  if (error) return { ...none, complete: true, status: "failed", error: textOf(error.content), prompt };
  if (turn.some((message) => message.type === "info" && textOf(message.content) === CANCELLED)) {
    return { ...none, complete: true, status: "cancelled", prompt };
  }
  if (turn.some(isHaltLine)) return { ...none, complete: true, status: "halted", prompt };
  const replies = turn.filter((message) => message.type === "gemini");
  const texts = replies.map((message) => textOf(message.content).trim()).filter((text) => text !== "");
  const lastReply = turn.findLastIndex((message) => message.type === "gemini");
  // A reply line is first written with `content:""` and rewritten once its tool calls ran.
  const last = turn[lastReply];
  const pending =
    last === undefined ||
    hasCalls(last) ||
    (textOf(last.content).trim() === "" && !Array.isArray(last.toolCalls)) ||
    turn.slice(lastReply + 1).some((message) => message.type === "user");
  return {
    text: texts.at(-1) ?? null,
    complete: !pending,
    sessionId,
    assistantMessages: replies.length,
    status: pending ? "running" : "answered",
    error: null,
    prompt,
  };
}

export const CANCELLED = "Request cancelled.";

/** gemini's "Agent execution stopped: <the hook's stopReason>" info line. */
export function isHaltLine(message: GeminiMessage): boolean {
  return message.type === "info" && textOf(message.content).startsWith("Agent execution stopped");
}

/** The error line of a failed turn (`turnKey` as in parseGeminiAnswer): its text and gemini's timestamp. */
export function findGeminiTurnError(
  transcript: string,
  turnKey: string | null,
): { readonly text: string; readonly timestamp: string | null } | null {
  const { raw } = replayGemini(transcript);
  const own = findTurnLine(raw, turnKey);
  const error = own === null ? undefined : turnMessages(raw, own).findLast((m) => m.type === "error");
  if (!error) return null;
  return {
    text: textOf(error.content),
    timestamp: typeof error.timestamp === "string" ? error.timestamp : null,
  };
}

/** The turn's message lines after its prompt, up to the next prompt line, latest version of each id. */
function turnMessages(raw: readonly Raw[], own: Raw): GeminiMessage[] {
  const after = raw.filter((entry) => entry.line > own.line);
  const next = after.findIndex((entry) => isRealPrompt(entry.message));
  const order: string[] = [];
  const byId = new Map<string, GeminiMessage>();
  for (const { message } of next < 0 ? after : after.slice(0, next)) {
    if (!byId.has(message.id)) order.push(message.id);
    byId.set(message.id, message);
  }
  return order.flatMap((id) => byId.get(id) ?? []);
}

/** The replayed message list, the raw message lines in file order, and the session id. */
export function replayGemini(transcript: string): {
  messages: GeminiMessage[];
  raw: Raw[];
  sessionId: string | null;
} {
  let order: string[] = [];
  let byId = new Map<string, GeminiMessage>();
  const raw: Raw[] = [];
  let sessionId: string | null = null;
  transcript.split("\n").forEach((text, line) => {
    const record = parseLine(text);
    if (record === null) return;
    if (typeof record.$rewindTo === "string") {
      const cut = order.indexOf(record.$rewindTo);
      const kept = cut < 0 ? [] : order.slice(0, cut);
      for (const id of order.slice(kept.length)) byId.delete(id);
      order = kept;
    } else if (typeof record.id === "string") {
      const message = record as GeminiMessage;
      if (!byId.has(message.id)) order.push(message.id);
      byId.set(message.id, message);
      raw.push({ message, line });
    } else if (isRecord(record.$set) && Array.isArray(record.$set.messages)) {
      const list = record.$set.messages.filter(
        (m): m is GeminiMessage => isRecord(m) && typeof m.id === "string",
      );
      byId = new Map(list.map((m) => [m.id, m]));
      order = list.map((m) => m.id);
    } else if (typeof record.sessionId === "string") sessionId ??= record.sessionId;
  });
  return { messages: order.flatMap((id) => byId.get(id) ?? []), raw, sessionId };
}

/** Model text: a string, or the non-thought `text` parts of a parts array. */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => isRecord(part) && typeof part.text === "string" && part.thought !== true)
    .map((part) => (part as { text: string }).text)
    .join("");
}

function findTurnLine(raw: readonly Raw[], turnKey: string | null): Raw | null {
  const prompts = raw.filter((entry) => isRealPrompt(entry.message));
  if (turnKey === null) return prompts.at(-1) ?? null;
  return prompts.find((entry) => String(entry.message.timestamp ?? "") >= turnKey) ?? null;
}

/** A prompt somebody sent: a user line with text that is not the `<session_context>` preamble. */
export function isRealPrompt(message: GeminiMessage): boolean {
  return message.type === "user" && promptText(message).trim() !== "";
}

/** A user line's prompt as typed: `displayContent` (an `@file` prompt) or its text parts, no preamble. */
export function promptText(message: GeminiMessage): string {
  const content = Array.isArray(message.displayContent) ? message.displayContent : message.content;
  const parts = typeof content === "string" ? [{ text: content }] : Array.isArray(content) ? content : [];
  return parts
    .filter((part) => isRecord(part) && typeof part.text === "string")
    .map((part) => (part as { text: string }).text)
    .filter((text) => !/^\s*<session_context>/.test(text))
    .join("\n");
}

function hasCalls(message: GeminiMessage | undefined): boolean {
  if (!message) return false;
  if (Array.isArray(message.toolCalls) && message.toolCalls.length > 0) {
    return message.toolCalls.some((call) => isRecord(call) && call.result === undefined);
  }
  return (
    Array.isArray(message.content) && message.content.some((part) => isRecord(part) && "functionCall" in part)
  );
}
