// Chat Completions wire format as @ai-sdk/openai-compatible (opencode 1.18.33) reads it: SSE
// `chat.completion.chunk`s (a role delta, content / reasoning_content / tool_calls deltas, a last
// chunk with `finish_reason`, a usage chunk when `stream_options.include_usage`, then
// `data: [DONE]`), the `chat.completion` JSON object, and OpenAI's error body.
import { splitText } from "./anthropic-wire.ts";
import { renderErrorBody } from "./openai-wire.ts";
import type { Frame } from "./sse-response.ts";

export { renderErrorBody as renderChatError };

/** What one answer holds, ids assigned. */
export interface ChatWireMessage {
  id: string;
  model: string;
  text: string;
  reasoning: string;
  calls: { id: string; name: string; arguments: string }[];
  promptTokens: number;
}

const CREATED = 1_790_000_000;

function chunk(m: ChatWireMessage, delta: Record<string, unknown>, finish: string | null = null) {
  const data = {
    id: m.id,
    object: "chat.completion.chunk",
    created: CREATED,
    model: m.model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(data)}\n\n`;
}

function finishReason(m: ChatWireMessage): "stop" | "tool_calls" {
  return m.calls.length > 0 ? "tool_calls" : "stop";
}

function chatUsage(m: ChatWireMessage): Record<string, number> {
  const completion = Math.max(1, Math.ceil((m.text.length + m.reasoning.length) / 4) + m.calls.length * 8);
  return {
    prompt_tokens: m.promptTokens,
    completion_tokens: completion,
    total_tokens: m.promptTokens + completion,
  };
}

/** The frames of a complete streamed answer; text and reasoning go out as `chunks` deltas. */
export function planChatFrames(
  m: ChatWireMessage,
  options: { chunks: number; chunkDelayMs: number; includeUsage: boolean },
): Frame[] {
  const frames: Frame[] = [{ data: chunk(m, { role: "assistant", content: "" }), delayMs: 0 }];
  for (const delta of m.reasoning === "" ? [] : splitText(m.reasoning, options.chunks))
    frames.push({ data: chunk(m, { reasoning_content: delta }), delayMs: options.chunkDelayMs });
  for (const delta of m.text === "" ? [] : splitText(m.text, options.chunks))
    frames.push({ data: chunk(m, { content: delta }), delayMs: options.chunkDelayMs });
  for (const [index, call] of m.calls.entries()) {
    const half = Math.ceil(call.arguments.length / 2);
    const head = { index, id: call.id, type: "function", function: { name: call.name, arguments: "" } };
    frames.push({ data: chunk(m, { tool_calls: [head] }), delayMs: 0 });
    for (const piece of [call.arguments.slice(0, half), call.arguments.slice(half)])
      frames.push({
        data: chunk(m, { tool_calls: [{ index, function: { arguments: piece } }] }),
        delayMs: 0,
      });
  }
  frames.push({ data: chunk(m, {}, finishReason(m)), delayMs: 0 });
  if (options.includeUsage) {
    const usage = { id: m.id, object: "chat.completion.chunk", created: CREATED, model: m.model };
    frames.push({
      data: `data: ${JSON.stringify({ ...usage, choices: [], usage: chatUsage(m) })}\n\n`,
      delayMs: 0,
    });
  }
  frames.push({ data: "data: [DONE]\n\n", delayMs: 0 });
  return frames;
}

/** The non-streaming form of the same answer. */
export function renderChatJson(m: ChatWireMessage): Record<string, unknown> {
  const message: Record<string, unknown> = { role: "assistant", content: m.text === "" ? null : m.text };
  if (m.reasoning !== "") message.reasoning_content = m.reasoning;
  if (m.calls.length > 0)
    message.tool_calls = m.calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    }));
  return {
    id: m.id,
    object: "chat.completion",
    created: CREATED,
    model: m.model,
    choices: [{ index: 0, message, finish_reason: finishReason(m) }],
    usage: chatUsage(m),
  };
}

/**
 * A stream that breaks after a first text delta: `malformed` then has a data line that is not JSON,
 * `cut` resets the connection, `error` sends an error object in the stream (opencode: UnknownError,
 * not retried, when its type is `invalid_request_error`).
 */
export function planBrokenChatFrames(m: ChatWireMessage, how: "malformed" | "cut" | "error"): Frame[] {
  const frames = [
    chunk(m, { role: "assistant", content: "" }),
    chunk(m, { content: `STUB-${how.toUpperCase()} partial` }),
  ];
  if (how === "malformed") frames.push('data: {"id":"x","choices":[{"delta":{"content":"STUB\n\n');
  if (how === "error")
    frames.push(
      `data: ${JSON.stringify({ error: { message: "stub stream error", type: "invalid_request_error", param: null, code: null } })}\n\n`,
    );
  return frames.map((data) => ({ data, delayMs: 0 }));
}
