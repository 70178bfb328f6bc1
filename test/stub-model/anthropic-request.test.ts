import { describe, expect, test } from "bun:test";
import { classifyMessages, readMessagesBody, readTurn, splitUserContent } from "./anthropic-request.ts";
import { ATTRIBUTION_REMINDER, claudeFirstTurn } from "./sse-client.ts";

const NOTIFICATION =
  "<system-reminder>\n[SYSTEM NOTIFICATION - NOT USER INPUT]\n<task-notification>\n<status>completed</status>\n</task-notification>\n</system-reminder>";
const HANDBACK =
  'Another Claude session sent a message:\n<agent-message from="a1">\n  STUB-SUBAGENT-REPORT\n</agent-message>\n…';

describe("splitUserContent", () => {
  test.each([
    ["string content", "hello", "hello", ""],
    [
      "reminder block then prompt",
      [text(ATTRIBUTION_REMINDER), text("hi\nthere")],
      "hi\nthere",
      ATTRIBUTION_REMINDER,
    ],
    [
      "two reminders in one block",
      [text("<system-reminder>a</system-reminder>\n<system-reminder>b</system-reminder>\n"), text("x")],
      "x",
      "<system-reminder>a</system-reminder>\n<system-reminder>b</system-reminder>\n",
    ],
    [
      "interrupt marker",
      [text("[Request interrupted by user]"), text("next")],
      "next",
      "[Request interrupted by user]",
    ],
    [
      "interrupt for tool use",
      [text("[Request interrupted by user for tool use]"), text("go on")],
      "go on",
      "[Request interrupted by user for tool use]",
    ],
    ["subagent hand-back (string)", HANDBACK, "", HANDBACK],
    [
      "a prompt that mentions the tag is kept",
      [text("explain <system-reminder> tags please")],
      "explain <system-reminder> tags please",
      "",
    ],
    [
      "a prompt that is only a reminder-looking line plus text is kept",
      [text("<system-reminder>x</system-reminder> and more")],
      "<system-reminder>x</system-reminder> and more",
      "",
    ],
    ["surrounding whitespace of the prompt is kept", [text("  padded  ")], "  padded  ", ""],
    ["non-text blocks are ignored", [{ type: "image", source: {} }, text("caption")], "caption", ""],
  ])("%s", (_name, content, human, injected) => {
    expect(splitUserContent(content)).toEqual({ human, injected });
  });
});

describe("readTurn", () => {
  test("takes the last user message, not the trailing system message", () => {
    const turn = readTurn(readMessagesBody(claudeFirstTurn("the prompt")).messages);
    expect(turn).toMatchObject({ trigger: "prompt", prompt: "the prompt", messageCount: 2 });
  });

  test("a tool_result message is a tool_result turn", () => {
    const turn = readTurn([
      { role: "user", content: "run it" },
      { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: {} }] },
      {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "hi\n", is_error: false }],
      },
    ]);
    expect(turn.trigger).toBe("tool_result");
    expect(turn.toolResults).toEqual([{ toolUseId: "toolu_1", isError: false, text: "hi\n" }]);
  });

  test("a message made only of injected blocks is a notice", () => {
    const turn = readTurn([{ role: "user", content: [text(NOTIFICATION)] }]);
    expect(turn).toMatchObject({ trigger: "notice", prompt: "", injected: NOTIFICATION });
  });

  test("a human prompt next to a notification is a prompt", () => {
    const turn = readTurn([{ role: "user", content: [text(NOTIFICATION), text("next one")] }]);
    expect(turn).toMatchObject({ trigger: "prompt", prompt: "next one" });
  });
});

describe("classifyMessages", () => {
  const none = new Headers();
  test.each([
    ["main", claudeFirstTurn("hi"), none, "main"],
    [
      "classifier",
      { system: "You are a security monitor for autonomous AI coding agents. …", messages: [] },
      none,
      "classifier",
    ],
    [
      "title",
      {
        output_config: {
          format: { type: "json_schema", schema: { properties: { title: { type: "string" } } } },
        },
        messages: [],
      },
      none,
      "title",
    ],
    [
      "other structured output",
      { output_config: { format: { type: "json_schema", schema: { properties: { x: {} } } } }, messages: [] },
      none,
      "other",
    ],
    [
      "subagent by header",
      claudeFirstTurn("sub"),
      new Headers({ "x-claude-code-agent-id": "a1" }),
      "subagent",
    ],
    [
      "subagent by billing line",
      { system: [{ type: "text", text: "x-anthropic-billing-header: cc_is_subagent=true;" }], messages: [] },
      none,
      "subagent",
    ],
  ])("%s", (_name, body, headers, kind) => {
    expect<string>(classifyMessages(readMessagesBody(body), headers).kind).toBe(kind);
  });
});

function text(body: string): { type: "text"; text: string } {
  return { type: "text", text: body };
}
