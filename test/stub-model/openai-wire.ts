// Responses API wire format: SSE event sequences, JSON responses and error bodies, in the shape
// Codex 0.171.0 reads. A streamed answer is `response.created`, then per output item
// `output_item.added`, its parts and deltas, `output_item.done`, and last `response.completed`
// (with usage). Codex needs `output_item.done` for the text and `response.completed` to end the
// turn; a stream without `completed` is a disconnect it retries.
import { splitText } from "./anthropic-wire.ts";
import type { Frame } from "./sse-response.ts";

/** An output item as it goes on the wire (ids assigned). */
export type WireItem =
  | { type: "message"; id: string; text: string }
  | { type: "reasoning"; id: string; summary: string }
  | {
      type: "function_call";
      id: string;
      callId: string;
      name: string;
      arguments: string;
      /** The namespace of a namespaced tool (codex puts each MCP server's tools in `mcp__<server>`). */
      namespace?: string;
    };

export interface WireResponse {
  id: string;
  model: string;
  items: WireItem[];
  inputTokens: number;
}

/** How a stream breaks: a data line that is not JSON, a reset, `response.failed`, or headers then silence. */
export type BrokenStream = "malformed" | "cut" | "failed" | "stall";

const ERROR_CODES: Record<number, { type: string; code: string | null }> = {
  400: { type: "invalid_request_error", code: null },
  401: { type: "invalid_request_error", code: "invalid_api_key" },
  403: { type: "invalid_request_error", code: "unsupported_country_region_territory" },
  404: { type: "invalid_request_error", code: "model_not_found" },
  429: { type: "requests", code: "rate_limit_exceeded" },
  500: { type: "server_error", code: null },
  503: { type: "server_error", code: "server_is_overloaded" },
};

function renderSse(data: { type: string } & Record<string, unknown>): string {
  return `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The frames of a complete streamed response; message and reasoning text go out as `chunks` deltas. */
export function planResponseFrames(response: WireResponse, chunks: number, chunkDelayMs: number): Frame[] {
  const frames: Frame[] = [];
  let sequence = 0;
  const push = (type: string, data: Record<string, unknown>, delayMs = 0) =>
    frames.push({ data: renderSse({ type, sequence_number: sequence++, ...data }), delayMs });
  push("response.created", { response: responseShell(response, "in_progress", []) });
  push("response.in_progress", { response: responseShell(response, "in_progress", []) });
  for (const [outputIndex, item] of response.items.entries()) {
    const at = { item_id: item.id, output_index: outputIndex };
    push("response.output_item.added", { output_index: outputIndex, item: emptyItem(item) });
    if (item.type === "message") {
      const part = { type: "output_text", text: "", annotations: [] };
      push("response.content_part.added", { ...at, content_index: 0, part });
      for (const delta of splitText(item.text, chunks))
        push("response.output_text.delta", { ...at, content_index: 0, delta }, chunkDelayMs);
      push("response.output_text.done", { ...at, content_index: 0, text: item.text });
      push("response.content_part.done", { ...at, content_index: 0, part: { ...part, text: item.text } });
    } else if (item.type === "reasoning") {
      const part = { type: "summary_text", text: "" };
      push("response.reasoning_summary_part.added", { ...at, summary_index: 0, part });
      for (const delta of splitText(item.summary, chunks))
        push("response.reasoning_summary_text.delta", { ...at, summary_index: 0, delta }, chunkDelayMs);
      push("response.reasoning_summary_text.done", { ...at, summary_index: 0, text: item.summary });
      push("response.reasoning_summary_part.done", {
        ...at,
        summary_index: 0,
        part: { ...part, text: item.summary },
      });
    } else {
      const half = Math.ceil(item.arguments.length / 2);
      for (const delta of [item.arguments.slice(0, half), item.arguments.slice(half)])
        push("response.function_call_arguments.delta", { ...at, delta });
      push("response.function_call_arguments.done", { ...at, arguments: item.arguments });
    }
    push("response.output_item.done", { output_index: outputIndex, item: renderItem(item) });
  }
  push("response.completed", { response: responseShell(response, "completed", response.items) });
  return frames;
}

/** The non-streaming form of the same response. */
export function renderResponseJson(response: WireResponse): Record<string, unknown> {
  return responseShell(response, "completed", response.items);
}

/**
 * A stream that breaks after a first text delta: `malformed` then has a data line that is not JSON,
 * `cut` resets the connection, `failed` sends `response.failed`, and `stall` sends nothing more
 * (Codex gives up after `stream_idle_timeout_ms`, 300 s by default).
 */
export function planBrokenFrames(response: Omit<WireResponse, "items">, how: BrokenStream): Frame[] {
  const item: WireItem = { type: "message", id: `${response.id}_msg`, text: "" };
  const at = { item_id: item.id, output_index: 0, content_index: 0 };
  const frames = [
    renderSse({
      type: "response.created",
      response: responseShell({ ...response, items: [] }, "in_progress"),
    }),
    renderSse({ type: "response.output_item.added", output_index: 0, item: emptyItem(item) }),
    renderSse({ type: "response.output_text.delta", ...at, delta: `STUB-${how.toUpperCase()} partial` }),
  ];
  if (how === "malformed") {
    frames.push(
      'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","delta":"STUB\n\n',
    );
  } else if (how === "failed") {
    const failed = responseShell({ ...response, items: [] }, "failed");
    failed.error = { code: "server_error", message: "stub response.failed" };
    frames.push(renderSse({ type: "response.failed", response: failed }));
  }
  return frames.map((data) => ({ data, delayMs: 0 }));
}

export function renderErrorBody(status: number, message: string): Record<string, unknown> {
  const known = ERROR_CODES[status] ?? {
    type: status >= 500 ? "server_error" : "invalid_request_error",
    code: null,
  };
  return { error: { message, type: known.type, param: null, code: known.code } };
}

function responseShell(
  response: WireResponse | (Omit<WireResponse, "items"> & { items: WireItem[] }),
  status: "in_progress" | "completed" | "failed",
  items: readonly WireItem[] = [],
): Record<string, unknown> {
  const outputTokens = Math.max(1, Math.ceil(JSON.stringify(items).length / 4));
  return {
    id: response.id,
    object: "response",
    created_at: 1_790_000_000,
    status,
    model: response.model,
    output: items.map(renderItem),
    error: null,
    usage:
      status === "completed"
        ? {
            input_tokens: response.inputTokens,
            input_tokens_details: { cached_tokens: 0 },
            output_tokens: outputTokens,
            output_tokens_details: { reasoning_tokens: 0 },
            total_tokens: response.inputTokens + outputTokens,
          }
        : null,
  };
}

function renderItem(item: WireItem): Record<string, unknown> {
  switch (item.type) {
    case "message":
      return {
        type: "message",
        id: item.id,
        status: "completed",
        role: "assistant",
        content: [{ type: "output_text", text: item.text, annotations: [] }],
      };
    case "reasoning":
      return {
        type: "reasoning",
        id: item.id,
        summary: [{ type: "summary_text", text: item.summary }],
        encrypted_content: null,
      };
    case "function_call":
      return {
        type: "function_call",
        id: item.id,
        status: "completed",
        call_id: item.callId,
        name: item.name,
        ...(item.namespace ? { namespace: item.namespace } : {}),
        arguments: item.arguments,
      };
  }
}

function emptyItem(item: WireItem): Record<string, unknown> {
  switch (item.type) {
    case "message":
      return { type: "message", id: item.id, status: "in_progress", role: "assistant", content: [] };
    case "reasoning":
      return { type: "reasoning", id: item.id, summary: [] };
    case "function_call":
      return {
        type: "function_call",
        id: item.id,
        status: "in_progress",
        call_id: item.callId,
        name: item.name,
        ...(item.namespace ? { namespace: item.namespace } : {}),
        arguments: "",
      };
  }
}
