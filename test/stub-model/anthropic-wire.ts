// Messages API wire format: SSE event sequences, JSON messages and error bodies.
// Event order follows the streaming docs: message_start, ping, per block content_block_start /
// *_delta… / content_block_stop, message_delta (stop_reason, usage), message_stop.
import type { Frame } from "./sse-response.ts";

/** A content block as it goes on the wire (tool_use ids already assigned). */
export type WireBlock =
  | { type: "text"; text: string }
  | { type: "thinking"; thinking: string; signature: string }
  | { type: "tool_use"; id: string; name: string; input: Record<string, unknown> };

export interface WireMessage {
  id: string;
  model: string;
  blocks: WireBlock[];
  stopReason: "end_turn" | "tool_use" | "stop_sequence";
  stopSequence: string | null;
  inputTokens: number;
}

const ERROR_TYPES: Record<number, string> = {
  400: "invalid_request_error",
  401: "authentication_error",
  403: "permission_error",
  404: "not_found_error",
  413: "request_too_large",
  429: "rate_limit_error",
  500: "api_error",
  529: "overloaded_error",
};

function renderSse(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** Cuts the text at the first stop sequence, as the API does (the sequence itself is not returned). */
export function applyStopSequences(
  blocks: WireBlock[],
  sequences: readonly string[],
): { blocks: WireBlock[]; stopSequence: string | null } {
  for (const [index, block] of blocks.entries()) {
    if (block.type !== "text") continue;
    const hits = sequences
      .map((sequence) => ({ sequence, at: block.text.indexOf(sequence) }))
      .filter((hit) => hit.at >= 0)
      .sort((a, b) => a.at - b.at);
    const first = hits[0];
    if (first === undefined) continue;
    const cut: WireBlock = { type: "text", text: block.text.slice(0, first.at) };
    return { blocks: [...blocks.slice(0, index), cut], stopSequence: first.sequence };
  }
  return { blocks, stopSequence: null };
}

/** The frames of a complete streamed message; text and thinking go out as `chunks` deltas each. */
export function planMessageFrames(message: WireMessage, chunks: number, chunkDelayMs: number): Frame[] {
  const frames: Frame[] = [];
  const push = (event: string, data: unknown, delayMs = 0) =>
    frames.push({ data: renderSse(event, data), delayMs });
  push("message_start", {
    type: "message_start",
    message: { ...messageShell(message), content: [], stop_reason: null, stop_sequence: null },
  });
  push("ping", { type: "ping" });
  for (const [index, block] of message.blocks.entries()) {
    push("content_block_start", { type: "content_block_start", index, content_block: emptyBlock(block) });
    for (const delta of blockDeltas(block, chunks)) {
      const paced = delta.type === "text_delta" || delta.type === "thinking_delta";
      push("content_block_delta", { type: "content_block_delta", index, delta }, paced ? chunkDelayMs : 0);
    }
    push("content_block_stop", { type: "content_block_stop", index });
  }
  push("message_delta", {
    type: "message_delta",
    delta: { stop_reason: message.stopReason, stop_sequence: message.stopSequence },
    usage: { output_tokens: outputTokens(message) },
  });
  push("message_stop", { type: "message_stop" });
  return frames;
}

/** The non-streaming form of the same message. */
export function renderMessageJson(message: WireMessage): Record<string, unknown> {
  return {
    ...messageShell(message),
    content: message.blocks,
    stop_reason: message.stopReason,
    stop_sequence: message.stopSequence,
    usage: { ...usageOf(message), output_tokens: outputTokens(message) },
  };
}

/** The frames of a stream that breaks: `malformed` has a data line that is not JSON. */
export function planBrokenFrames(shell: Omit<WireMessage, "blocks">, how: "malformed" | "cut"): Frame[] {
  const start = renderSse("message_start", {
    type: "message_start",
    message: {
      ...messageShell({ ...shell, blocks: [] }),
      content: [],
      stop_reason: null,
      stop_sequence: null,
    },
  });
  const block = renderSse("content_block_start", {
    type: "content_block_start",
    index: 0,
    content_block: { type: "text", text: "" },
  });
  // The malformed data line ends inside a string, so it is not JSON.
  const tail =
    how === "malformed"
      ? "event: content_block_delta\n" +
        'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"STUB-MALF\n\n'
      : renderSse("content_block_delta", {
          type: "content_block_delta",
          index: 0,
          delta: { type: "text_delta", text: "STUB-CUT partial" },
        });
  return [start, block, tail].map((data) => ({ data, delayMs: 0 }));
}

export function renderErrorBody(status: number, message: string, requestId: string): Record<string, unknown> {
  const type = ERROR_TYPES[status] ?? (status >= 500 ? "api_error" : "invalid_request_error");
  return { type: "error", error: { type, message }, request_id: requestId };
}

/** A rough count (4 characters a token), enough for usage fields and count_tokens. */
export function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4));
}

function messageShell(message: WireMessage): Record<string, unknown> {
  return {
    id: message.id,
    type: "message",
    role: "assistant",
    model: message.model,
    usage: usageOf(message),
  };
}

function usageOf(message: WireMessage): Record<string, number> {
  return {
    input_tokens: message.inputTokens,
    output_tokens: 1,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

function outputTokens(message: WireMessage): number {
  return estimateTokens(message.blocks);
}

function emptyBlock(block: WireBlock): Record<string, unknown> {
  if (block.type === "text") return { type: "text", text: "" };
  if (block.type === "thinking") return { type: "thinking", thinking: "", signature: "" };
  return { type: "tool_use", id: block.id, name: block.name, input: {} };
}

function blockDeltas(block: WireBlock, chunks: number): Record<string, string>[] {
  if (block.type === "text")
    return splitText(block.text, chunks).map((text) => ({ type: "text_delta", text }));
  if (block.type === "thinking") {
    const thoughts = splitText(block.thinking, chunks).map((thinking) => ({
      type: "thinking_delta",
      thinking,
    }));
    return [...thoughts, { type: "signature_delta", signature: block.signature }];
  }
  // The API opens a tool's input with an empty partial_json and then streams pieces of the JSON text.
  const json = JSON.stringify(block.input);
  const half = Math.ceil(json.length / 2);
  return ["", json.slice(0, half), json.slice(half)].map((partial_json) => ({
    type: "input_json_delta",
    partial_json,
  }));
}

/** Splits by code points into `parts` pieces of near-equal size (fewer when the text is shorter). */
export function splitText(body: string, parts: number): string[] {
  const points = Array.from(body);
  const count = Math.max(1, Math.min(parts, points.length));
  const base = Math.floor(points.length / count);
  const extra = points.length % count;
  const pieces: string[] = [];
  let at = 0;
  for (let index = 0; index < count; index++) {
    const size = base + (index < extra ? 1 : 0);
    pieces.push(points.slice(at, at + size).join(""));
    at += size;
  }
  return pieces;
}
