import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readOpencodeConversation, trackOpencodeTurn } from "../../../src/core/providers/opencode/stream.ts";
import { firstBlock, interleaveMalformed, outline } from "./conversation-cases.ts";

/**
 * Real opencode 1.18.33 session records (its record query's rows, one a line: opencode-stream.test.ts):
 * record-turns' multi-line prompt, a write (approved), a question, a 401 and an interrupted turn;
 * record-rejected's write the user rejected.
 */
const lines = (name: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "opencode", `${name}.jsonl`), "utf8")
    .split("\n")
    .filter((line) => line !== "");
const TURNS = lines("record-turns");
const REJECTED = lines("record-rejected");
const FIRST_PROMPT = "first line\n  second, indented\n\n\"dq\" 'sq' $HOME `tick` \\back\n日本語 🎉 end?";

/** A record row in the query's shape (opencode/transcript.ts): a message and its parts. */
const row = (
  id: string,
  role: string,
  parts: Record<string, unknown>[],
  info: Record<string, unknown> = {},
) =>
  JSON.stringify({
    id,
    session: "ses_1",
    role,
    created: Number(id.replace(/\D/g, "")),
    info: { role, ...info },
    parts,
  });
const settled = { modelID: "stub-model", finish: "stop", time: { created: 1, completed: 2 } };
const THOUGHT = [
  row("m1", "user", [{ type: "text", text: "think first" }]),
  row(
    "m2",
    "assistant",
    [
      { type: "reasoning", text: "hmm" },
      { type: "text", text: "done thinking" },
    ],
    settled,
  ),
  row("m3", "user", [{ type: "text", text: "Summarize the task tool output above", synthetic: true }]),
  row("m4", "assistant", [{ type: "text", text: "the summary" }], settled),
  row("m5", "user", [
    { type: "text", text: "read this" },
    { type: "text", text: "Called the Read tool with the following input", synthetic: true },
    { type: "file", url: "file:///x" },
  ]),
  row("m6", "assistant", [{ type: "text", text: "read" }], settled),
];

describe("readOpencodeConversation", () => {
  test.each([
    [
      "record-turns",
      TURNS,
      [
        [FIRST_PROMPT, ["a:text"]],
        ["stub:write /outside/x.txt hello outside", ["a:tool_use", "u:tool_result", "a:text"]],
        ["stub:question", ["a:tool_use", "u:tool_result", "a:text"]],
        ["stub:error 401", ["a:text"]],
        ["stub:hang", []],
      ],
    ],
    [
      "record-rejected",
      REJECTED,
      [
        ["stub:write /outside/x.txt hello outside", ["a:tool_use", "u:tool_result"]],
        ["stub:question", []],
        ["stub:error 401", ["a:text"]],
        ["stub:hang", []],
      ],
    ],
    [
      "reasoning is a thinking block; a synthetic user message is no turn, a synthetic part no prompt",
      THOUGHT,
      [
        ["think first", ["a:thinking", "a:text", "a:text"]],
        ["read this", ["a:text"]],
      ],
    ],
  ])("%s", (_, record, expected) => {
    expect(outline(readOpencodeConversation(record))).toEqual(expected as [string, string[]][]);
  });

  const promptIds = (record: readonly string[]) =>
    record.flatMap((line) => {
      const m = JSON.parse(line);
      return m.role === "user" ? [m.id as string] : [];
    });
  test.each(
    [TURNS, REJECTED].flatMap((record) => promptIds(record).map((id, i) => [i, id, record] as const)),
  )("turn %i is exactly what trackOpencodeTurn(%s) renders from the whole record", (i, promptId, record) => {
    const tracker = trackOpencodeTurn(promptId);
    const tracked = record.flatMap((line) => tracker.push(line));
    expect(readOpencodeConversation(record)[i]?.messages).toEqual(tracked);
  });

  test("a tool call's id is its result's; the failed call is the API-error line", () => {
    const [, write, , fail] = readOpencodeConversation(TURNS);
    const [call, result] = write?.messages ?? [];
    const id = firstBlock(call).id;
    expect(result?.message).toMatchObject({
      content: [{ tool_use_id: id, type: "tool_result", is_error: false }],
    });
    expect(fail?.messages[0]).toMatchObject({ is_api_error_message: true, api_error_status: 401 });
  });

  test.each([
    ["no rows", [] as string[]],
    ["one empty row", [""]],
    ["a reply without its prompt", [TURNS[1] ?? ""]],
  ])("an empty record (%s) is no turns", (_, record) => {
    expect(readOpencodeConversation(record)).toEqual([]);
  });

  test("malformed rows between the real ones are skipped, never thrown on", () => {
    expect(readOpencodeConversation(interleaveMalformed(TURNS))).toEqual(readOpencodeConversation(TURNS));
  });
});
