// Gemini API wire format: streamGenerateContent SSE chunks, generateContent JSON, error bodies.
// A stream is `data: <one-line GenerateContentResponse>\r\n\r\n` per chunk (the API's own line
// ends; gemini-cli's SDK accepts \n\n too). The last chunk carries `finishReason` and usage:
// without a finishReason gemini-cli 0.61.0 retries 4 times and fails the turn.
import { splitText } from "./anthropic-wire.ts";
import type { Frame } from "./sse-response.ts";

/** One part as it goes on the wire (function call ids already assigned). */
export type GeminiPart =
  | { text: string; thought?: true }
  | { functionCall: { id: string; name: string; args: Record<string, unknown> } };

export interface GeminiWireMessage {
  responseId: string;
  model: string;
  parts: GeminiPart[];
  promptTokens: number;
}

/** google.rpc status names by HTTP status, as the API puts them in `error.status`. */
const STATUS_NAMES: Record<number, string> = {
  400: "INVALID_ARGUMENT",
  401: "UNAUTHENTICATED",
  403: "PERMISSION_DENIED",
  404: "NOT_FOUND",
  429: "RESOURCE_EXHAUSTED",
  499: "CANCELLED",
  500: "INTERNAL",
  503: "UNAVAILABLE",
  504: "DEADLINE_EXCEEDED",
};

function renderChunk(data: unknown): string {
  return `data: ${JSON.stringify(data)}\r\n\r\n`;
}

/**
 * The chunks of a streamed answer: each text or thought part as `chunks` pieces, each function call
 * whole (the API never splits one), then a final chunk with `finishReason: STOP` and usage.
 */
export function planGeminiFrames(message: GeminiWireMessage, chunks: number, chunkDelayMs: number): Frame[] {
  const frames: Frame[] = [];
  for (const part of message.parts) {
    if ("functionCall" in part) {
      frames.push({ data: renderChunk(chunkOf(message, [part])), delayMs: 0 });
      continue;
    }
    for (const piece of splitText(part.text, chunks)) {
      const wire = part.thought ? { text: piece, thought: true } : { text: piece };
      frames.push({ data: renderChunk(chunkOf(message, [wire])), delayMs: chunkDelayMs });
    }
  }
  // The finishing chunk repeats no text: an empty text part is what the API sends.
  frames.push({
    data: renderChunk({
      ...chunkOf(message, [{ text: "" }], "STOP"),
      usageMetadata: usageOf(message),
    }),
    delayMs: 0,
  });
  return frames;
}

/** The non-streaming (`generateContent`) form of the same answer. */
export function renderGeminiJson(message: GeminiWireMessage): Record<string, unknown> {
  return { ...chunkOf(message, message.parts, "STOP"), usageMetadata: usageOf(message) };
}

/**
 * A stream that breaks. `malformed`: a data line that is not JSON (gemini-cli 0.61.0 shows
 * `[API Error: Expected property name …]`, no retry). `cut`: a text chunk, then the connection resets
 * (`[API Error: terminated]`).
 */
export function planBrokenGeminiFrames(message: GeminiWireMessage, how: "malformed" | "cut"): Frame[] {
  const partial = renderChunk(chunkOf(message, [{ text: "STUB-CUT partial" }]));
  const data =
    how === "malformed" ? 'data: {"candidates":[{"content":{"parts":[{"text":"STUB-MALF\r\n\r\n' : partial;
  return [{ data, delayMs: 0 }];
}

/**
 * `{"error":{"code","message","status"}}`, the body of every Gemini API error. A message that is
 * the text of a JSON object is merged into `error`, so a test can send `details` (QuotaFailure,
 * RetryInfo, ErrorInfo), which decide how gemini-cli handles a 429 (see gemini-replies.ts).
 */
export function renderGeminiError(status: number, message: string): Record<string, unknown> {
  const name = STATUS_NAMES[status] ?? (status >= 500 ? "INTERNAL" : "FAILED_PRECONDITION");
  return { error: { code: status, message, status: name, ...parseObject(message) } };
}

function parseObject(text: string): Record<string, unknown> {
  if (!text.trimStart().startsWith("{")) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/** A rough count (4 characters a token), enough for usage fields and countTokens. */
export function estimateGeminiTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? "").length / 4));
}

function chunkOf(
  message: GeminiWireMessage,
  parts: readonly unknown[],
  finishReason?: string,
): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { role: "model", parts }, index: 0 };
  if (finishReason) candidate.finishReason = finishReason;
  return { candidates: [candidate], modelVersion: message.model, responseId: message.responseId };
}

function usageOf(message: GeminiWireMessage): Record<string, number> {
  const output = estimateGeminiTokens(message.parts);
  return {
    promptTokenCount: message.promptTokens,
    candidatesTokenCount: output,
    totalTokenCount: message.promptTokens + output,
  };
}
