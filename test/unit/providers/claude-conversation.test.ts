import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readClaudeConversation, trackClaudeTurn } from "../../../src/core/providers/claude/stream.ts";
import { firstBlock, interleaveMalformed, outline } from "./conversation-cases.ts";

/** The real 2.1.332 transcript of claude-stream.test.ts: Bash then text, thinking then text, an API error. */
const LINES = readFileSync(join(import.meta.dir, "..", "..", "fixtures", "claude-transcript.jsonl"), "utf8")
  .trimEnd()
  .split("\n");
const PROMPT_IDS = [
  "5f7e9561-1ea8-47fe-bfe1-15425d771af0",
  "69f01a24-1753-488e-97cd-221fb6e0ee4a",
  "42f806a5-dae8-4b5a-9361-610e8a6e9914",
];

const SID = "1b4cebf1-9187-4edd-acb4-9ee812e90f4e";
/** A user line as fake-claude.sh (and 2.1.332) writes it: origin / promptSource, meta lines with isMeta. */
const user = (promptId: string, content: unknown, origin: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    isSidechain: false,
    promptId,
    type: "user",
    message: { role: "user", content },
    ...extra,
    uuid: `u-${promptId}-${origin}`,
    timestamp: "2026-12-01T10:00:00.000Z",
    origin: { kind: origin },
    promptSource: origin === "human" ? "typed" : "system",
    sessionId: SID,
  });
const assistant = (id: string, block: Record<string, unknown>, stop = "end_turn") =>
  JSON.stringify({
    isSidechain: false,
    type: "assistant",
    message: {
      id,
      type: "message",
      role: "assistant",
      model: "claude-opus-5-5",
      content: [block],
      stop_reason: stop,
    },
    uuid: `a-${id}-${String(block.type)}`,
    timestamp: "2026-12-01T10:00:01.000Z",
    sessionId: SID,
  });
const LIMITED = [
  user("p1", "long job", "human"),
  assistant("msg_1", { type: "text", text: "You've hit your limit" }),
  user("p1", "Continue from where you left off.", "auto-continuation", {
    isMeta: true,
    turnOrigin: "auto_continuation",
  }),
  assistant("msg_2", { type: "text", text: "FAKE-RESUMED after limit reset" }),
  user("p2", "Another Claude session sent a message:\n<agent-message>…", "peer", { isMeta: true }),
  assistant("msg_3", { type: "text", text: "the report, read" }),
  user(
    "p4",
    [
      { type: "text", text: "what is in" },
      { type: "image", source: {} },
      { type: "text", text: "this?" },
    ],
    "human",
  ),
  assistant("msg_4", { type: "text", text: "a cat" }),
];

describe("readClaudeConversation", () => {
  test("the real transcript: one entry per typed prompt, with its tool call, result, thinking and error", () => {
    expect(outline(readClaudeConversation(LINES))).toEqual([
      ["do bash", ["a:tool_use", "u:tool_result", "a:text"]],
      ["stub:thinking hi", ["a:thinking", "a:text"]],
      ["stub:error 500", ["a:text"]],
    ]);
  });

  test.each(PROMPT_IDS.map((id, i) => [i, id] as const))(
    "turn %i is exactly what trackClaudeTurn(%s) renders from the whole file",
    (i, promptId) => {
      const tracker = trackClaudeTurn(promptId);
      const tracked = LINES.flatMap((line) => tracker.push(line));
      expect(readClaudeConversation(LINES)[i]?.messages).toEqual(tracked);
    },
  );

  test("a tool call and its result keep the CLI's ids; the API error keeps its error keys", () => {
    const [bash, , error] = readClaudeConversation(LINES);
    const [call, result] = bash?.messages ?? [];
    const id = firstBlock(call).id;
    expect(id).toBe("toolu_stub_1_0");
    expect(result?.message).toMatchObject({
      content: [{ tool_use_id: id, type: "tool_result", content: "hi" }],
    });
    expect(error?.messages[0]).toMatchObject({ is_api_error_message: true, api_error_status: 500 });
  });

  test("auto-continuation, peer and meta lines are no turns: their replies stay in the human turn", () => {
    expect(outline(readClaudeConversation(LIMITED))).toEqual([
      ["long job", ["a:text", "a:text", "a:text"]],
      ["what is in\nthis?", ["a:text"]],
    ]);
  });

  test.each([
    ["no lines", [] as string[]],
    ["one empty line", [""]],
    ["bookkeeping only", [LINES[0] ?? ""]],
    ["a torn prompt line", [user("p9", "half", "human").slice(0, 40)]],
  ])("an empty record (%s) is no turns", (_, lines) => {
    expect(readClaudeConversation(lines)).toEqual([]);
  });

  test("malformed lines between the real ones are skipped, never thrown on", () => {
    expect(readClaudeConversation(interleaveMalformed(LINES))).toEqual(readClaudeConversation(LINES));
  });
});
