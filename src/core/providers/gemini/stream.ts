import { isRecord, parseJsonObject as parseLine } from "../../common/json.ts";
import {
  apiErrorLine,
  assistantLine,
  type ContentBlock,
  claudeUsage,
  replayTurns,
  statusInText,
  type TurnStart,
  timeOfIso,
  toolResultLine,
} from "../stream-shape.ts";
import type { ConversationTurn, StreamMessage, TurnSummary, TurnTracker } from "../transcript-types.ts";
import { addUsage, emptyUsage, modelUsageOf } from "../usage.ts";
import { CANCELLED, type GeminiMessage, isHaltLine, isRealPrompt, promptText, textOf } from "./transcript.ts";

/**
 * Follows one gemini-cli 0.61.0 turn through its chat recording (see gemini/transcript.ts) and
 * renders claude -p's stream-json shapes. The turn is the first real prompt line written at or after
 * promptId (BeforeAgent's `timestamp`; null: the first real prompt fed) up to the next real prompt,
 * an `error` line or an info "Request cancelled." line. Raw lines, not the replay: a rollback's
 * `$set` does not unprint what was streamed, and after a denied tool gemini re-appends the earlier
 * history under new ids (older timestamps, after the cancel line, so never inside a turn).
 *
 * Each `gemini` line is one API message (its id is the message id). A line is written when its
 * response ends, with `content:""` while its tool calls run, then rewritten under the same id with
 * `toolCalls`; its blocks (thinking, text, one tool_use per call) are printed once each, as they
 * become known. A `user` line of functionResponse parts is claude's tool_result line; the results
 * gemini also copies into `toolCalls[].result` are not printed a second time.
 */
export function trackGeminiTurn(promptId: string | null): TurnTracker {
  let state: "waiting" | "open" | "ended" = "waiting";
  let sessionId: string | null = null;
  let promptAt: number | null = null;
  /** The turn's prompt line or its last tool-result line: where the next API request starts. */
  let boundary: number | null = null;
  let cancelled = false;
  let halted = false;
  let apiError: TurnSummary["apiError"] = null;
  const replies = new Map<string, Reply>();
  let last: { calls: number; text: boolean; resultAfter: boolean } | null = null;
  const tools = new Map<string, Call>();
  const settled = new Set<string>();
  const denials = new Map<string, Record<string, unknown>>();

  function push(line: string): StreamMessage[] {
    const record = parseLine(line);
    if (record === null || state === "ended") return [];
    if (typeof record.id !== "string") {
      if (typeof record.sessionId === "string") sessionId ??= record.sessionId;
      return []; // `$set`, `$rewindTo`: rollbacks do not unprint
    }
    const message = record as GeminiMessage;
    if (isRealPrompt(message)) {
      if (state === "open") state = "ended";
      else if (promptId === null || String(message.timestamp ?? "") >= promptId) {
        state = "open";
        promptAt = boundary = timeOfIso(message.timestamp);
      }
      return [];
    }
    if (state !== "open") return [];
    if (message.type === "gemini") return replyLines(message);
    if (message.type === "user") return resultLines(message);
    if (message.type === "error") return errorLines(message);
    if (message.type === "info" && textOf(message.content) === CANCELLED) {
      cancelled = true;
      state = "ended";
    }
    if (isHaltLine(message)) return haltLines(message);
    return [];
  }

  /**
   * An AfterTool hook answered `{"continue":false}` (umbel -p --max-turns): gemini stops after the
   * tool and writes no functionResponse line, only the results in `toolCalls`; those are printed.
   */
  function haltLines(message: GeminiMessage): StreamMessage[] {
    halted = true;
    state = "ended";
    const open = [...tools.values()].filter((call) => !settled.has(call.id) && call.response !== null);
    if (open.length === 0) return [];
    return resultLines({
      id: `${message.id}.results`,
      type: "user",
      timestamp: message.timestamp,
      content: open.map((call) => ({ functionResponse: call.response })),
    });
  }

  function replyLines(message: GeminiMessage): StreamMessage[] {
    const reply = replies.get(message.id) ?? newReply(message, boundary);
    replies.set(message.id, reply);
    const calls = callsOf(message);
    const text = textOf(message.content);
    reply.usage = usageOf(message.tokens) ?? reply.usage;
    if (typeof message.model === "string") reply.model = message.model;
    reply.stop = calls.length > 0 ? "tool_use" : "end_turn";
    last = { calls: calls.length, text: text.trim() !== "", resultAfter: false };
    const blocks: [string, ContentBlock][] = [];
    const thinking = thinkingOf(message.thoughts);
    if (thinking !== "") blocks.push(["thinking", { type: "thinking", thinking, signature: "" }]);
    if (text.trim() !== "") blocks.push(["text", { type: "text", text }]);
    for (const call of calls) {
      tools.set(call.id, call);
      if (call.cancelled) settled.add(call.id);
      if (call.denied)
        denials.set(call.id, { tool_name: call.name, tool_use_id: call.id, tool_input: call.input });
      blocks.push([`tool:${call.id}`, { type: "tool_use", id: call.id, name: call.name, input: call.input }]);
    }
    return blocks
      .filter(([key]) => !reply.printed.includes(key))
      .map(([key, block]) => {
        reply.printed.push(key);
        const n = reply.printed.length - 1;
        return assistantLine({
          id: message.id,
          model: reply.model,
          usage: reply.usage,
          block,
          stopReason: reply.stop,
          sessionId,
          // One record, several lines: the record's id, suffixed from the second block on.
          uuid: n === 0 ? message.id : `${message.id}.${n}`,
          timestamp: stringOr(message.timestamp),
        });
      });
  }

  function resultLines(message: GeminiMessage): StreamMessage[] {
    const parts = Array.isArray(message.content) ? message.content : [];
    const responses = parts.map((part) => (isRecord(part) ? part.functionResponse : undefined));
    if (responses.length === 0 || !responses.every(isRecord)) return [];
    boundary = timeOfIso(message.timestamp) ?? boundary;
    if (last) last.resultAfter = true;
    const results = responses.map((response) => {
      const id = String(response.id ?? "");
      settled.add(id);
      const body = isRecord(response.response) ? response.response : {};
      const content = typeof body.output === "string" ? body.output : JSON.stringify(body);
      return { toolUseId: id, content, isError: "error" in body };
    });
    const at = stringOr(message.timestamp);
    // claude -p adds how each call was permitted; gemini only shows that it ran (or was refused).
    const permission = (id: string) => (tools.get(id)?.denied ? "deny" : "accept");
    const meta = results.map(({ toolUseId: id }) => ({
      id,
      permission_decision: { decision: permission(id), source: null, reason_type: null },
    }));
    return [
      { ...toolResultLine({ results, sessionId, uuid: message.id, timestamp: at }), tool_result_meta: meta },
    ];
  }

  function errorLines(message: GeminiMessage): StreamMessage[] {
    const text = textOf(message.content);
    const [status, errorType] = [statusInText(text), errorTypeOf(text)];
    apiError = { status, type: errorType };
    state = "ended";
    const at = stringOr(message.timestamp);
    return [apiErrorLine({ text, status, errorType, sessionId, uuid: message.id, timestamp: at })];
  }

  function summary(): TurnSummary {
    let usage = emptyUsage();
    const perModel: { model: string; usage: unknown }[] = [];
    let apiMs: number | null = null;
    let firstAt: number | null = null;
    for (const reply of replies.values()) {
      if (reply.usage) {
        usage = addUsage(usage, reply.usage);
        if (reply.model) perModel.push({ model: reply.model, usage: reply.usage });
      }
      if (reply.at !== null && reply.since !== null)
        apiMs = (apiMs ?? 0) + Math.max(0, reply.at - reply.since);
      if (reply.at !== null && (firstAt === null || reply.at < firstAt)) firstAt = reply.at;
    }
    const answered = last?.text === true && last.calls === 0 && !last.resultAfter;
    return {
      assistantMessages: replies.size,
      usage,
      modelUsage: modelUsageOf(perModel),
      // apiErrorLine's stop_reason, as claude's tracker reports an error turn.
      stopReason: apiError ? "stop_sequence" : ([...replies.values()].at(-1)?.stop ?? null),
      durationApiMs: apiError && apiMs === null ? 0 : apiMs,
      ttftMs: firstAt === null || promptAt === null ? null : Math.max(0, firstAt - promptAt),
      timeToRequestMs: null,
      apiError,
      permissionDenials: [...denials.values()],
      complete: apiError !== null || cancelled || halted || answered,
      toolsPending: [...tools.keys()].filter((id) => !settled.has(id)).length,
      sessionId,
    };
  }

  return { push, summary };
}

/**
 * The whole recording, one entry per real prompt line (not the `<session_context>` preamble, not a
 * functionResponse line), from the raw lines as trackGeminiTurn reads them: a failed or cancelled
 * prompt, which gemini rolls back from its history, is replayed with its error or its cancel.
 * After a denied tool gemini re-appends the history under new ids and new timestamps (0.61.0: the
 * first of them the preamble and the first prompt in one user line, the run closed by a
 * `$set.messages` of those ids); that copy's prompts are not turns.
 */
export function readGeminiConversation(lines: readonly string[]): ConversationTurn[] {
  let copying = false;
  const starts: TurnStart[] = [];
  lines.forEach((line, at) => {
    const record = parseLine(line);
    if (record === null) return;
    if (isRecord(record.$set) && Array.isArray(record.$set.messages)) copying = false;
    if (typeof record.id !== "string") return;
    const message = record as GeminiMessage;
    if (starts.length > 0 && message.type === "user" && hasPreamble(message)) copying = true;
    if (!copying && isRealPrompt(message)) starts.push({ at, prompt: promptText(message) });
  });
  return replayTurns(lines, starts, () => trackGeminiTurn(null));
}

function hasPreamble(message: GeminiMessage): boolean {
  const parts = Array.isArray(message.content) ? message.content : [];
  return parts.some(
    (part) => isRecord(part) && typeof part.text === "string" && /^\s*<session_context>/.test(part.text),
  );
}

function newReply(message: GeminiMessage, since: number | null): Reply {
  return { at: timeOfIso(message.timestamp), since, usage: null, model: null, stop: "end_turn", printed: [] };
}

type Reply = {
  /** The line's own `timestamp` (kept by its rewrites). */
  at: number | null;
  since: number | null;
  usage: Record<string, unknown> | null;
  model: string | null;
  stop: "tool_use" | "end_turn";
  /** Block keys already printed: "thinking", "text", "tool:<call id>". */
  printed: string[];
};

type Call = {
  id: string;
  name: string;
  input: unknown;
  cancelled: boolean;
  /** The functionResponse gemini copied into `toolCalls[].result`, or null. */
  response: Record<string, unknown> | null;
  /** Refused by the user or a policy (the result's error says "denied"); Escape mid-run is not. */
  denied: boolean;
};

/** A response's tool calls, from the `toolCalls` gemini adds when it rewrites the line. */
function callsOf(message: GeminiMessage): Call[] {
  const entries = Array.isArray(message.toolCalls) ? message.toolCalls.filter(isRecord) : [];
  return entries
    .filter((call) => typeof call.id === "string" && typeof call.name === "string")
    .map((call) => ({
      id: call.id as string,
      name: call.name as string,
      input: call.args ?? {},
      cancelled: call.status === "cancelled",
      response: responseOf(call.result),
      denied: (Array.isArray(call.result) ? call.result : []).some((part) => {
        const body =
          isRecord(part) && isRecord(part.functionResponse) ? part.functionResponse.response : null;
        return isRecord(body) && typeof body.error === "string" && /\bdenied\b/i.test(body.error);
      }),
    }));
}

/**
 * One thinking block from gemini's thought records. gemini splits each streamed thought into a
 * `**subject**` and the rest; the stub's chunks ("pon", "der", "ing") have no subject and join to
 * the streamed text, and a subject starts a new paragraph as it did in the model's text.
 */
function thinkingOf(thoughts: unknown): string {
  let out = "";
  for (const thought of Array.isArray(thoughts) ? thoughts.filter(isRecord) : []) {
    const subject = typeof thought.subject === "string" ? thought.subject.trim() : "";
    const description = typeof thought.description === "string" ? thought.description : "";
    const piece = subject === "" ? description : `**${subject}**\n\n${description}`;
    out += out !== "" && subject !== "" ? `\n\n${piece}` : piece;
  }
  return out;
}

/**
 * gemini's `tokens` → claude's usage. gemini's `input` (promptTokenCount) includes the cached part
 * and its `output` excludes thinking, where claude counts input without cache reads and output with
 * thinking.
 */
function usageOf(tokens: unknown): Record<string, unknown> | null {
  if (!isRecord(tokens)) return null;
  const n = (key: string) => (typeof tokens[key] === "number" ? (tokens[key] as number) : 0);
  return claudeUsage({
    input: Math.max(0, n("input") - n("cached")),
    cacheRead: n("cached"),
    cacheCreation: 0,
    output: n("output") + n("thoughts"),
    thinking: n("thoughts"),
  });
}

/** `[API Error: {"error":{…,"status":"INVALID_ARGUMENT"}}]` → "INVALID_ARGUMENT"; plain text → null. */
function errorTypeOf(text: string): string | null {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end < start) return null;
  const parsed = parseLine(text.slice(start, end + 1));
  const error = parsed && isRecord(parsed.error) ? parsed.error : parsed;
  return error && typeof error.status === "string" ? error.status : null;
}

function responseOf(result: unknown): Record<string, unknown> | null {
  const first = Array.isArray(result)
    ? result.find((part) => isRecord(part) && isRecord(part.functionResponse))
    : null;
  return isRecord(first) && isRecord(first.functionResponse) ? first.functionResponse : null;
}

function stringOr(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}
