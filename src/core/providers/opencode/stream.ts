import { isRecord } from "../../common/json.ts";
import {
  apiErrorLine,
  assistantLine,
  type ContentBlock,
  claudeUsage,
  replayTurns,
  type TurnStart,
  toolResultLine,
} from "../stream-shape.ts";
import type { ConversationTurn, StreamMessage, TurnSummary, TurnTracker } from "../transcript-types.ts";
import { addUsage, emptyUsage, modelUsageOf } from "../usage.ts";
import { answerText, isTypedPrompt, messageError, type OpencodeMessage, parseRecord } from "./transcript.ts";

type Part = Readonly<Record<string, unknown>>;

const ABORTED = "MessageAbortedError";
/** opencode's words for a tool call the user rejected in the permission box (1.18.33). */
const REJECTED = /rejected permission/;

/**
 * Follows one opencode turn through its record (opencode/record.ts: one settled message per line)
 * and renders claude -p's stream-json shapes. The turn opens at the user message promptId (null:
 * the first typed prompt fed) and ends at the next typed prompt. Each assistant message is one model
 * call, i.e. one claude API message: one `assistant` line per block (reasoning → thinking, text,
 * tool → tool_use with the tool's input), then one `user` line with the results of its tools.
 * A failed call is claude's API-error line.
 */
export function trackOpencodeTurn(promptId: string | null): TurnTracker {
  let state: "waiting" | "open" | "ended" = "waiting";
  let sessionId: string | null = null;
  let promptAt: number | null = null;
  const replies: OpencodeMessage[] = [];
  const denials: Record<string, unknown>[] = [];
  let apiError: TurnSummary["apiError"] = null;

  function push(line: string): StreamMessage[] {
    const message = parseRecord(line)[0];
    if (message === undefined || state === "ended") return [];
    sessionId ??= message.session;
    if (isTypedPrompt(message)) {
      if (state === "open") state = "ended";
      else if (promptId === null || message.id === promptId) {
        state = "open";
        promptAt = message.created;
      }
      return [];
    }
    if (state !== "open" || message.role !== "assistant") return [];
    // An interrupted call (Esc Esc, or --max-turns stopping the turn) is not an API message.
    if (messageError(message)?.name === ABORTED) return [];
    replies.push(message);
    return render(message);
  }

  function render(message: OpencodeMessage): StreamMessage[] {
    const timestamp = new Date(message.created).toISOString();
    const error = messageError(message);
    if (error) {
      const data =
        isRecord(message.info.error) && isRecord(message.info.error.data) ? message.info.error.data : {};
      const status = typeof data.statusCode === "number" ? data.statusCode : null;
      apiError = { status, type: error.name };
      return [
        apiErrorLine({
          text: error.message,
          status,
          errorType: error.name,
          sessionId,
          uuid: message.id,
          timestamp,
        }),
      ];
    }
    const base = {
      id: message.id,
      model: typeof message.info.modelID === "string" ? message.info.modelID : null,
      usage: usageOf(message),
      stopReason: message.info.finish === "tool-calls" ? "tool_use" : "end_turn",
      sessionId,
      timestamp,
    };
    const lines = blocksOf(message).map((block, i) =>
      assistantLine({ ...base, block, uuid: `${message.id}-${i}` }),
    );
    const tools = message.parts.filter((part) => part.type === "tool");
    if (tools.length === 0) return lines;
    for (const tool of tools) {
      const state = isRecord(tool.state) ? tool.state : {};
      if (state.status === "error" && REJECTED.test(String(state.error ?? "")))
        denials.push({
          tool_name: tool.tool ?? null,
          tool_use_id: tool.callID ?? null,
          tool_input: state.input ?? {},
        });
    }
    const results = tools.map((tool) => {
      const state = isRecord(tool.state) ? tool.state : {};
      const isError = state.status === "error";
      return {
        toolUseId: String(tool.callID ?? ""),
        content: String((isError ? state.error : state.output) ?? ""),
        isError,
      };
    });
    // claude -p adds how each call was permitted; opencode's record shows only a rejection.
    const denied = new Set(denials.map((d) => d.tool_use_id));
    const meta = results.map(({ toolUseId: id }) => ({
      id,
      permission_decision: { decision: denied.has(id) ? "deny" : "accept", source: null, reason_type: null },
    }));
    const line = toolResultLine({ results, sessionId, uuid: `${message.id}-results`, timestamp });
    return [...lines, { ...line, tool_result_meta: meta }];
  }

  function summary(): TurnSummary {
    let usage = emptyUsage();
    let apiMs: number | null = null;
    const perModel: { model: string; usage: unknown }[] = [];
    for (const reply of replies) {
      const u = usageOf(reply);
      usage = addUsage(usage, u);
      if (typeof reply.info.modelID === "string") perModel.push({ model: reply.info.modelID, usage: u });
      const time = isRecord(reply.info.time) ? reply.info.time : {};
      if (typeof time.created === "number" && typeof time.completed === "number")
        apiMs = (apiMs ?? 0) + Math.max(0, time.completed - time.created);
    }
    const last = replies.at(-1);
    const first = replies[0];
    return {
      assistantMessages: replies.length,
      usage,
      modelUsage: modelUsageOf(perModel),
      stopReason: last === undefined ? null : last.info.finish === "tool-calls" ? "tool_use" : "end_turn",
      durationApiMs: apiMs,
      ttftMs: first && promptAt !== null && !apiError ? Math.max(0, first.created - promptAt) : null,
      timeToRequestMs: null,
      apiError,
      permissionDenials: denials,
      complete: last !== undefined && (last.info.finish !== "tool-calls" || messageError(last) !== null),
      // A message is in the record once settled: its tools have run.
      toolsPending: 0,
      sessionId,
    };
  }

  return { push, summary };
}

/**
 * The whole session record (one row a line), one entry per typed prompt: a user message with a text
 * part opencode did not make up (its synthetic ones: /review's "Summarize the task…", an attached
 * file's read); the prompt is those parts' text joined.
 */
export function readOpencodeConversation(lines: readonly string[]): ConversationTurn[] {
  const starts = lines.flatMap((line, at): TurnStart[] => {
    const message = parseRecord(line)[0];
    if (message === undefined || !isTypedPrompt(message)) return [];
    const texts = message.parts.filter((part) => part.type === "text" && !part.synthetic && !part.ignored);
    return [{ at, prompt: texts.map((part) => String(part.text ?? "")).join("\n") }];
  });
  return replayTurns(lines, starts, () => trackOpencodeTurn(null));
}

/** thinking, text and tool_use blocks, in the order of the message's parts. */
function blocksOf(message: OpencodeMessage): ContentBlock[] {
  const text = answerText(message);
  const blocks: ContentBlock[] = [];
  let textDone = false;
  for (const part of message.parts) {
    if (part.type === "reasoning" && typeof part.text === "string" && part.text !== "")
      blocks.push({ type: "thinking", thinking: part.text, signature: "" });
    else if (part.type === "text" && text !== null && !textDone) {
      blocks.push({ type: "text", text });
      textDone = true;
    } else if (part.type === "tool") blocks.push(toolUse(part));
  }
  return blocks;
}

function toolUse(part: Part): ContentBlock {
  const state = isRecord(part.state) ? part.state : {};
  return {
    type: "tool_use",
    id: String(part.callID ?? ""),
    name: String(part.tool ?? ""),
    input: state.input ?? {},
  };
}

/** claude's usage from the message's `tokens` (input, output, reasoning, cache read / write). */
function usageOf(message: OpencodeMessage): Record<string, unknown> {
  const tokens = isRecord(message.info.tokens) ? message.info.tokens : {};
  const cache = isRecord(tokens.cache) ? tokens.cache : {};
  const n = (value: unknown) => (typeof value === "number" ? value : 0);
  return claudeUsage({
    input: n(tokens.input),
    cacheRead: n(cache.read),
    cacheCreation: n(cache.write),
    output: n(tokens.output) + n(tokens.reasoning),
    thinking: n(tokens.reasoning),
  });
}
