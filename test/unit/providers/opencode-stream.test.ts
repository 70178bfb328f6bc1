import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { trackOpencodeTurn } from "../../../src/core/providers/opencode/stream.ts";
import { parseRecord } from "../../../src/core/providers/opencode/transcript.ts";

const record = (name: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "opencode", `${name}.jsonl`), "utf8");
const lines = (text: string) => text.split("\n").filter((l) => l !== "");
const promptId = (text: string, starts: string) =>
  parseRecord(text).find((m) => m.role === "user" && String(m.parts[0]?.text ?? "").startsWith(starts))?.id ??
  null;

function follow(text: string, starts: string) {
  const tracker = trackOpencodeTurn(promptId(text, starts));
  const messages = lines(text).flatMap((line) => tracker.push(line));
  return { messages, summary: tracker.summary() };
}

describe("opencode stream-json", () => {
  test("a tool turn: tool_use, its result, then the answer; two API messages with usage", () => {
    const { messages, summary } = follow(record("record-turns"), "stub:write");
    expect(
      messages.map(
        (m) =>
          `${m.type}:${JSON.stringify((m.message as { content: { type: string }[] }).content.map((c) => c.type))}`,
      ),
    ).toEqual(['assistant:["tool_use"]', 'user:["tool_result"]', 'assistant:["text"]']);
    expect(messages[0]).toMatchObject({
      message: {
        model: "stub-model",
        stop_reason: "tool_use",
        content: [
          {
            type: "tool_use",
            name: "write",
            input: { filePath: "/outside/x.txt", content: "hello outside" },
          },
        ],
      },
    });
    const use = (messages[0]?.message as { content: { id: string }[] } | undefined)?.content[0]?.id;
    expect(messages[1]).toMatchObject({
      message: {
        content: [
          { type: "tool_result", tool_use_id: use, content: "Wrote file successfully.", is_error: false },
        ],
      },
    });
    expect(messages[2]).toMatchObject({ message: { stop_reason: "end_turn" } });
    expect(summary).toMatchObject({
      assistantMessages: 2,
      stopReason: "end_turn",
      complete: true,
      apiError: null,
      toolsPending: 0,
    });
    // (bun 1.4.5's toMatchObject with expect.any() writes the matcher into the received object)
    expect(typeof summary.usage.output_tokens).toBe("number");
    expect(Number(summary.usage.input_tokens)).toBeGreaterThan(1000);
    expect(Object.keys(summary.modelUsage)).toEqual(["stub-model"]);
    expect(summary.durationApiMs).toBeGreaterThan(0);
    expect(summary.sessionId).toStartWith("ses_");
  });

  test("the turn ends at the next typed prompt", () => {
    const { messages } = follow(record("record-turns"), "first line");
    expect(messages).toHaveLength(1);
  });

  test("an API error is claude's API-error line and the summary's apiError", () => {
    const { messages, summary } = follow(record("record-turns"), "stub:error 401");
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      is_api_error_message: true,
      api_error_status: 401,
      message: { content: [{ type: "text", text: "stub error 401" }] },
    });
    expect(summary).toMatchObject({ apiError: { status: 401, type: "APIError" }, complete: true });
  });

  test("a rejected permission is a permission denial and an error result", () => {
    const { messages, summary } = follow(record("record-rejected"), "stub:write");
    expect(messages.at(-1)).toMatchObject({
      message: { content: [{ type: "tool_result", is_error: true }] },
    });
    expect(summary.permissionDenials).toEqual([
      {
        tool_name: "write",
        tool_use_id: expect.any(String),
        tool_input: { filePath: "/outside/x.txt", content: "hello outside" },
      },
    ]);
    expect(summary).toMatchObject({ stopReason: "tool_use", complete: false });
  });
});
