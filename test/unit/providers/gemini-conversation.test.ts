import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readGeminiConversation, trackGeminiTurn } from "../../../src/core/providers/gemini/stream.ts";
import { firstBlock, interleaveMalformed, outline } from "./conversation-cases.ts";
import { TRANSCRIPT_LINES, TURN_KEYS } from "./gemini-samples.ts";

/**
 * Real gemini-cli 0.61.0 chat recordings (gemini-stream.test.ts): chat-print's "first plain", "use
 * tools" (two run_shell_command calls), "think" (thoughts), "fail" (API error 400, rolled back);
 * chat-halted's turn an AfterTool hook stopped; gemini-samples' session with an Escape, an API
 * error and a denied tool, after which gemini re-appends the history under new ids.
 */
const lines = (name: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "gemini", `${name}.jsonl`), "utf8")
    .trimEnd()
    .split("\n");
const PRINT = lines("chat-print");
const HALTED = lines("chat-halted");
/** BeforeAgent timestamps of chat-print's four turns: a little before each prompt line. */
const PRINT_KEYS = [
  "2026-11-30T00:29:30.300Z",
  "2026-11-30T00:29:31.300Z",
  "2026-11-30T00:29:33.900Z",
  "2026-11-30T00:29:34.800Z",
];

describe("readGeminiConversation", () => {
  test.each([
    [
      "chat-print",
      PRINT,
      [
        ["first plain", ["a:text"]],
        ["use tools", ["a:tool_use", "u:tool_result", "a:tool_use", "u:tool_result", "a:text"]],
        ["think", ["a:thinking", "a:text"]],
        ["fail", ["a:text"]],
      ],
    ],
    ["chat-halted", HALTED, [["go", ["a:tool_use", "u:tool_result"]]]],
    [
      "the re-appended history after a denied tool is no turns",
      TRANSCRIPT_LINES,
      [
        ["first plain", ["a:text"]],
        ["stub:bash touch t1.txt", ["a:tool_use", "u:tool_result", "a:text"]],
        ["stub:hang", []],
        ["stub:error 400", ["a:text"]],
        ["stub:bash touch denied.txt", ["a:tool_use"]],
        ["last plain", ["a:text"]],
      ],
    ],
  ])("%s: one entry per real prompt (the <session_context> preamble is none)", (_, record, expected) => {
    expect(outline(readGeminiConversation(record))).toEqual(expected as [string, string[]][]);
  });

  test.each([
    ...PRINT_KEYS.map((key, i) => [i, key, PRINT] as const),
    ...Object.values(TURN_KEYS).map((key, i) => [i, key, TRANSCRIPT_LINES] as const),
  ])("turn %i is exactly what trackGeminiTurn(%s) renders from the whole recording", (i, key, record) => {
    const tracker = trackGeminiTurn(key);
    const tracked = record.flatMap((line) => tracker.push(line));
    expect(readGeminiConversation(record)[i]?.messages).toEqual(tracked);
  });

  test("a tool call's id is its result's; thoughts are a thinking block; the failure is the API-error line", () => {
    const [, tools, think, fail] = readGeminiConversation(PRINT);
    const [call, result] = tools?.messages ?? [];
    const id = firstBlock(call).id;
    expect(result?.message).toMatchObject({ content: [{ tool_use_id: id, type: "tool_result" }] });
    expect(think?.messages[0]?.message).toMatchObject({
      content: [{ type: "thinking", thinking: "pondering" }],
    });
    expect(fail?.messages[0]).toMatchObject({ is_api_error_message: true, api_error_status: 400 });
  });

  test("an @file prompt is the prompt as typed (displayContent), not the inlined file", () => {
    const prompt = JSON.stringify({
      id: "u1",
      timestamp: "2026-12-01T10:00:00.000Z",
      type: "user",
      content: [{ text: "@hello.txt summarize" }, { text: "--- hello.txt ---\nhello" }],
      displayContent: [{ text: "@hello.txt summarize" }],
    });
    expect(readGeminiConversation([PRINT[0] ?? "", prompt]).map((t) => t.prompt)).toEqual([
      "@hello.txt summarize",
    ]);
  });

  test.each([
    ["no lines", [] as string[]],
    ["one empty line", [""]],
    ["the header and the preamble only", PRINT.slice(0, 2)],
    ["a tool result line only", [PRINT[10] ?? ""]],
  ])("an empty record (%s) is no turns", (_, record) => {
    expect(readGeminiConversation(record)).toEqual([]);
  });

  test("malformed lines between the real ones are skipped, never thrown on", () => {
    expect(readGeminiConversation(interleaveMalformed(TRANSCRIPT_LINES))).toEqual(
      readGeminiConversation(TRANSCRIPT_LINES),
    );
  });
});
