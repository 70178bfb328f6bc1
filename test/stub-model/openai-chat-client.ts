// Test-side helpers for the Chat Completions dialect: request bodies shaped like opencode 1.18.33's
// (@ai-sdk/openai-compatible), and reading the text and tool calls out of a streamed answer.
import type { SseEvent } from "./sse-client.ts";

type Message = Record<string, unknown>;

/** A main request: opencode's system prompt, then the conversation, with its tools. */
export function opencodeTurn(
  messages: Message[],
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    model: "stub-model",
    max_tokens: 32000,
    messages: [{ role: "system", content: "You are opencode, an interactive CLI tool…" }, ...messages],
    tools: ["bash", "write", "question"].map((name) => ({
      type: "function",
      function: { name, parameters: { type: "object" } },
    })),
    tool_choice: "auto",
    stream: true,
    stream_options: { include_usage: true },
    ...extra,
  };
}

export const user = (content: string): Message => ({ role: "user", content });

/** The assistant's tool call and its result, as opencode sends them back. */
export function toolRound(callId: string, name: string, output: string): Message[] {
  return [
    {
      role: "assistant",
      content: "",
      tool_calls: [{ id: callId, type: "function", function: { name, arguments: "{}" } }],
    },
    { role: "tool", tool_call_id: callId, content: output },
  ];
}

/** The session-title side request of a first turn (no tools). */
export function opencodeTitle(prompt: string): Record<string, unknown> {
  return {
    model: "stub-model",
    messages: [
      { role: "system", content: "You are a title generator. You output ONLY a thread title." },
      { role: "user", content: "Generate a title for this conversation:\n" },
      { role: "user", content: prompt },
    ],
    stream: true,
  };
}

type Chunk = {
  choices?: {
    delta?: { content?: string; reasoning_content?: string; tool_calls?: ToolDelta[] };
    finish_reason?: string | null;
  }[];
  usage?: Record<string, number>;
};
type ToolDelta = { index: number; id?: string; function?: { name?: string; arguments?: string } };

/** The streamed text, reasoning, tool calls (arguments reassembled), finish reason and usage. */
export function chatAnswer(events: readonly SseEvent[]) {
  const chunks = events.filter((event) => event.json).map((event) => event.data as Chunk);
  const deltas = chunks.flatMap((chunk) => chunk.choices ?? []).map((choice) => choice.delta ?? {});
  const calls: { id: string; name: string; arguments: string }[] = [];
  for (const delta of deltas.flatMap((d) => d.tool_calls ?? [])) {
    const call = calls[delta.index] ?? { id: "", name: "", arguments: "" };
    calls[delta.index] = call;
    if (delta.id) call.id = delta.id;
    if (delta.function?.name) call.name = delta.function.name;
    call.arguments += delta.function?.arguments ?? "";
  }
  return {
    text: deltas.map((d) => d.content ?? "").join(""),
    reasoning: deltas.map((d) => d.reasoning_content ?? "").join(""),
    calls,
    finish:
      chunks.flatMap((chunk) => chunk.choices ?? []).findLast((c) => c.finish_reason)?.finish_reason ?? null,
    usage: chunks.find((chunk) => chunk.usage)?.usage ?? null,
    done: events.at(-1)?.data === "[DONE]",
  };
}

export function postChat(url: string, body: unknown) {
  return fetch(`${url}/v1/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer stub-key" },
    body: JSON.stringify(body),
  });
}
