// Test-side helpers: read an SSE body into events, and build request bodies shaped like Claude Code's.

export interface SseEvent {
  event: string;
  /** The parsed data line, or the raw text when it is not JSON. */
  data: unknown;
  json: boolean;
}

export async function readSse(response: Response): Promise<SseEvent[]> {
  const body = await response.text();
  return body
    .split("\n\n")
    .filter((frame) => frame.trim() !== "")
    .map((frame) => {
      const event = /^event: (.*)$/m.exec(frame)?.[1] ?? "";
      const raw = /^data: (.*)$/m.exec(frame)?.[1] ?? "";
      try {
        return { event, data: JSON.parse(raw), json: true };
      } catch {
        return { event, data: raw, json: false };
      }
    });
}

/** Concatenates the text deltas of a stream. */
export function streamedText(events: readonly SseEvent[]): string {
  return events
    .map((event) => event.data as { delta?: { type?: string; text?: string } })
    .filter((data) => data.delta?.type === "text_delta")
    .map((data) => data.delta?.text ?? "")
    .join("");
}

/** The git-attribution reminder Claude Code 2.1.332 puts before the first prompt (shortened). */
export const ATTRIBUTION_REMINDER =
  "<system-reminder>\nAttribution for git commits and pull requests you create from here on …\n</system-reminder>\n";

/** A first-turn main request as Claude Code sends it: reminder block, prompt block, system message. */
export function claudeFirstTurn(
  prompt: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    model: "claude-opus-5-5",
    stream: true,
    max_tokens: 128000,
    system: [{ type: "text", text: "You are Claude Code, Anthropic's official CLI for Claude." }],
    tools: [{ name: "Bash", input_schema: { type: "object" } }],
    messages: [
      {
        role: "user",
        content: [
          { type: "text", text: ATTRIBUTION_REMINDER },
          { type: "text", text: prompt },
        ],
      },
      { role: "system", content: "# Environment\n…" },
    ],
    ...extra,
  };
}

export function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": "sk-ant-test-stub", ...headers },
    body: JSON.stringify(body),
  });
}
