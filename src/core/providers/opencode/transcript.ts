import { isRecord, parseJsonObject } from "../../common/json.ts";
import type { RecordSource, TranscriptAnswer } from "../transcript-types.ts";
import type { TurnSignal } from "../types.ts";

/**
 * opencode 1.18.33 keeps every session in one SQLite database (`$XDG_DATA_HOME/opencode/opencode.db`,
 * WAL; `OPENCODE_DB` moves it): tables `message` (id, session_id, time_created, data JSON) and `part`
 * (id, message_id, data JSON). Each model call is an assistant message of its own (`finish`
 * `tool-calls` or `stop`, `time.completed` once settled, `error` on a failed call) whose `parentID` is
 * the user message; its parts are `step-start`, `text`, `reasoning`, `tool` (`state.status`
 * completed | error, `input`, `output`), `step-finish` (tokens) and `patch`. Measured: at the
 * plugin's idle the record already holds the final answer (10 of 10 reads, docs/providers.md).
 *
 * The query lists one session's settled messages, oldest first, each with its parts: every user
 * message, and an assistant message once completed (its parts are final by then), so a new row only
 * ever lands at the end and the record can be followed like an appended file.
 */
const OPENCODE_RECORD_QUERY = `SELECT json_object(
  'id', m.id, 'session', m.session_id, 'role', json_extract(m.data, '$.role'), 'created', m.time_created,
  'info', json(m.data),
  'parts', json((SELECT json_group_array(json(json_set(p.data, '$.id', p.id)))
                 FROM (SELECT id, data FROM part WHERE message_id = m.id ORDER BY id) p)))
FROM message m
WHERE m.session_id = ?1
  AND (json_extract(m.data, '$.role') = 'user' OR json_extract(m.data, '$.time.completed') IS NOT NULL)
ORDER BY m.time_created, m.id`;

/** The record of the session the plugin named, in the database its `ready` record named. */
export function opencodeRecordSource(database: string, sessionId: string | null): RecordSource {
  return { kind: "sqlite", path: database, query: OPENCODE_RECORD_QUERY, params: [sessionId ?? ""] };
}

/** One line of the record: a message and its parts. */
export type OpencodeMessage = {
  readonly id: string;
  readonly session: string | null;
  readonly role: "user" | "assistant";
  readonly created: number;
  readonly info: Readonly<Record<string, unknown>>;
  readonly parts: readonly Readonly<Record<string, unknown>>[];
};

export function parseRecord(text: string): OpencodeMessage[] {
  return text.split("\n").flatMap((line): OpencodeMessage[] => {
    const row = parseJsonObject(line);
    if (row === null || typeof row.id !== "string" || (row.role !== "user" && row.role !== "assistant"))
      return [];
    return [
      {
        id: row.id,
        session: typeof row.session === "string" ? row.session : null,
        role: row.role,
        created: typeof row.created === "number" ? row.created : 0,
        info: isRecord(row.info) ? row.info : {},
        parts: Array.isArray(row.parts) ? row.parts.filter(isRecord) : [],
      },
    ];
  });
}

/** A user message someone typed (opencode injects synthetic ones: /review's "Summarize the task…"). */
export function isTypedPrompt(message: OpencodeMessage): boolean {
  return message.role === "user" && message.parts.some((part) => part.type === "text" && !part.synthetic);
}

/**
 * The messages of the turn a prompt started: from its user message (promptId, or the last typed one)
 * to the next typed prompt; null when the record does not hold it (yet).
 */
export function findTurn(
  messages: readonly OpencodeMessage[],
  promptId: string | null,
): { prompt: OpencodeMessage; replies: OpencodeMessage[] } | null {
  const at =
    promptId === null
      ? messages.findLastIndex(isTypedPrompt)
      : messages.findIndex((message) => message.id === promptId);
  const prompt = messages[at];
  if (at < 0 || prompt === undefined) return null;
  const next = messages.findIndex((message, i) => i > at && isTypedPrompt(message));
  const replies = messages.slice(at + 1, next < 0 ? undefined : next).filter((m) => m.role === "assistant");
  return { prompt, replies };
}

/** The text an assistant message shows: its text parts, not synthetic or ignored, in order. */
export function answerText(message: OpencodeMessage): string | null {
  const texts = message.parts.filter((part) => part.type === "text" && !part.synthetic && !part.ignored);
  return texts.length === 0 ? null : texts.map((part) => String(part.text ?? "")).join("");
}

/** `{name, message}` of a failed model call, or null. */
export function messageError(message: OpencodeMessage): { name: string; message: string } | null {
  const error = message.info.error;
  if (!isRecord(error)) return null;
  const data = isRecord(error.data) ? error.data : {};
  return { name: String(error.name ?? "UnknownError"), message: String(data.message ?? error.name ?? "") };
}

/**
 * The contract's parseAnswer: the final assistant text of the turn is the last assistant message's
 * text (each model call is a message; the last one answers). Reasoning and tool parts are not text.
 */
export function parseOpencodeAnswer(transcript: string, promptId: string | null): TranscriptAnswer {
  const messages = parseRecord(transcript);
  const turn = findTurn(messages, promptId);
  const sessionId = messages.find((m) => m.session !== null)?.session ?? null;
  if (turn === null) return { text: null, complete: false, sessionId, assistantMessages: 0 };
  const last = turn.replies.at(-1);
  return {
    text: last ? answerText(last) : null,
    complete: last !== undefined && (last.info.finish !== "tool-calls" || messageError(last) !== null),
    sessionId,
    assistantMessages: turn.replies.length,
  };
}

/**
 * How the turn ended by the record, or null while it says nothing: a failed model call (the error),
 * an aborted one (Esc Esc: MessageAbortedError), or an answer. A last message that called tools says
 * only that the turn went on, or ended on a rejected permission: a stop with no answer, which never
 * ends a turn the plugin says is running.
 */
export function opencodeTurnEnd(transcript: string, promptId: string | null): TurnSignal | null {
  const turn = findTurn(parseRecord(transcript), promptId);
  const last = turn?.replies.at(-1);
  if (!turn || !last) return null;
  const error = messageError(last);
  if (error?.name === "MessageAbortedError") return { kind: "interrupted", promptId, detail: "interrupted" };
  if (error) return { kind: "failure", promptId, error: error.name, message: error.message };
  return { kind: "stop", promptId, message: answerText(last), backgroundTasks: [] };
}
