// Test-side helpers for the Responses dialect: request bodies shaped like Codex 0.171.0's, and
// reading the text out of a streamed answer.
import type { SseEvent } from "./sse-client.ts";

/** The environment context Codex puts before the first prompt (shortened). */
export const ENVIRONMENT_CONTEXT =
  "<environment_context>\n  <cwd>/work</cwd>\n  <shell>bash</shell>\n</environment_context>";

type Item = Record<string, unknown>;

export function userMessage(text: string): Item {
  return { type: "message", role: "user", content: [{ type: "input_text", text }] };
}

function developerMessage(text: string): Item {
  return { type: "message", role: "developer", content: [{ type: "input_text", text }] };
}

/** A first-turn main request: developer instructions, the environment context, then the prompt. */
export function codexTurn(prompt: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    model: "stub-model",
    stream: true,
    instructions: "",
    input: [
      developerMessage("You are a coding agent running in the Codex CLI…"),
      userMessage(ENVIRONMENT_CONTEXT),
      userMessage(prompt),
    ],
    tools: [{ type: "function", name: "exec_command" }],
    tool_choice: "auto",
    parallel_tool_calls: true,
    store: false,
    ...extra,
  };
}

/** The follow-up that returns a tool's output, as exec_command reports it. */
export function codexToolResult(prompt: string, callId: string, output: string, exitCode = 0) {
  const body = codexTurn(prompt);
  (body.input as Item[]).push(
    { type: "function_call", name: "exec_command", arguments: "{}", call_id: callId },
    {
      type: "function_call_output",
      call_id: callId,
      output: `Chunk ID: 1a2b3c\nWall time: 0.0012 seconds\nProcess exited with code ${exitCode}\nOriginal token count: 1\nOutput:\n${output}`,
    },
  );
  return body;
}

/** The thread-title side request of a first turn (json_schema `{title}`), quoting the prompt. */
export function codexTitle(prompt: string): Record<string, unknown> {
  return {
    ...codexTurn(`Generate a concise, single-line task title …\nUser prompt:\n${prompt}`),
    text: {
      format: {
        type: "json_schema",
        strict: true,
        name: "codex_output_schema",
        schema: {
          type: "object",
          properties: { title: { type: "string" } },
          required: ["title"],
          additionalProperties: false,
        },
      },
    },
  };
}

/** The text of the message items, from their `output_text.delta` events. */
export function responsesText(events: readonly SseEvent[]): string {
  return events
    .map((event) => event.data as { type?: string; delta?: string })
    .filter((data) => data.type === "response.output_text.delta")
    .map((data) => data.delta ?? "")
    .join("");
}

export function postResponses(url: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: "Bearer sk-stub", ...headers },
    body: JSON.stringify(body),
  });
}
