import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { trackClaudeTurn } from "../../../src/core/providers/claude/stream.ts";

/**
 * A real 2.1.332 interactive transcript (trimmed: attachments and request blobs dropped), three
 * turns against the stub: Bash then text, thinking then text, and an API error (500).
 */
const LINES = readFileSync(join(import.meta.dir, "..", "..", "fixtures", "claude-transcript.jsonl"), "utf8")
  .trimEnd()
  .split("\n");
const BASH_TURN = "5f7e9561-1ea8-47fe-bfe1-15425d771af0";
const THINKING_TURN = "69f01a24-1753-488e-97cd-221fb6e0ee4a";
const ERROR_TURN = "42f806a5-dae8-4b5a-9361-610e8a6e9914";

function follow(promptId: string | null, lines = LINES) {
  const tracker = trackClaudeTurn(promptId);
  const messages = lines.flatMap((line) => tracker.push(line));
  return { messages, summary: tracker.summary() };
}

describe("trackClaudeTurn", () => {
  test("a tool turn: assistant, tool result, assistant, in claude -p's stream shapes", () => {
    const { messages } = follow(BASH_TURN);
    expect(messages.map((m) => m.type)).toEqual(["assistant", "user", "assistant"]);
    const [call, result] = messages;
    expect(Object.keys(call ?? {}).sort()).toEqual(
      ["message", "parent_tool_use_id", "request_id", "session_id", "timestamp", "type", "uuid"].sort(),
    );
    expect(Object.keys((call?.message as object) ?? {}).sort()).toEqual(
      [
        "content",
        "context_management",
        "id",
        "model",
        "role",
        "stop_reason",
        "stop_sequence",
        "type",
        "usage",
      ].sort(),
    );
    expect(call).toMatchObject({ parent_tool_use_id: null, request_id: "req_stub_1" });
    expect(result).toMatchObject({
      message: {
        role: "user",
        content: [{ type: "tool_result", tool_use_id: "toolu_stub_1_0", content: "hi" }],
      },
      tool_use_result: { stdout: "hi" },
      tool_result_meta: [
        {
          id: "toolu_stub_1_0",
          permission_decision: { decision: "accept", source: "config", reason_type: "subcommandResults" },
        },
      ],
    });
  });

  test("an api-request line written after its answer: timing pending until it lands, then the same sum", () => {
    // Under load claude 2.1.332 wrote a turn's api-request entry eight lines after its answer (CI):
    // -p's drain must not stop at the answer while a message's request time is still to come.
    const late = LINES.filter((_, i) => i !== 7);
    const upToAnswer = late.slice(0, 9);
    expect(follow(BASH_TURN, upToAnswer).summary.timingsPending).toBe(1);
    const whole = [...late.slice(0, 12), LINES[7] ?? "", ...late.slice(12)];
    const { summary } = follow(BASH_TURN, whole);
    expect(summary.timingsPending).toBe(0);
    expect(summary.durationApiMs).toBe(21);
  });

  test("the summary sums usage per API message and times the requests", () => {
    const { summary } = follow(BASH_TURN);
    expect(summary).toMatchObject({
      assistantMessages: 2,
      stopReason: "end_turn",
      // (19.196 - 19.180) + (19.777 - 19.772): each answer's last line minus its api-request line.
      durationApiMs: 21,
      ttftMs: 466,
      timeToRequestMs: 450,
      apiError: null,
      complete: true,
      sessionId: "1b4cebf1-9187-4edd-acb4-9ee812e90f4e",
      permissionDenials: [],
    });
    expect(summary.usage).toMatchObject({
      input_tokens: 2927 + 2986,
      output_tokens: 29 + 9,
      service_tier: "standard",
    });
    expect(summary.modelUsage["claude-opus-5-5"]).toMatchObject({
      inputTokens: 5913,
      outputTokens: 38,
      costUSD: null,
    });
  });

  test("one API message split over lines (thinking, text) counts once", () => {
    const { messages, summary } = follow(THINKING_TURN);
    expect(messages.map((m) => (m.message as { content: { type: string }[] }).content[0]?.type)).toEqual([
      "thinking",
      "text",
    ]);
    expect(summary).toMatchObject({ assistantMessages: 1, durationApiMs: 10, complete: true });
    expect(summary.usage).toMatchObject({ input_tokens: 3020, output_tokens: 57 });
  });

  test("the turn ends at the next human prompt", () => {
    const { messages } = follow(THINKING_TURN);
    expect(messages.every((m) => m.type === "assistant" && !("is_api_error_message" in m))).toBe(true);
  });

  test("an API error: the error line with claude's error keys, zero usage, no model usage", () => {
    const { messages, summary } = follow(ERROR_TURN);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      type: "assistant",
      error: "server_error",
      is_api_error_message: true,
      api_error_status: 500,
      api_error_type: "api_error",
    });
    expect(summary).toMatchObject({
      apiError: { status: 500, type: "api_error" },
      durationApiMs: 0,
      ttftMs: null,
      modelUsage: {},
      stopReason: "stop_sequence",
      complete: false,
    });
    expect(summary.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
  });

  test("lines before the prompt (an earlier turn's tail) are not printed; half lines are skipped", () => {
    const { messages } = follow(THINKING_TURN, [
      ...LINES.slice(0, 16),
      '{"type":"assistant","mess',
      ...LINES.slice(16),
    ]);
    expect(messages).toHaveLength(2);
  });

  test("a rejected tool call is a permission denial with the tool's name and input", () => {
    const lines = [
      '{"type":"user","promptId":"p1","origin":{"kind":"human"},"message":{"role":"user","content":"go"},"sessionId":"s"}',
      '{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"rm x"}}],"usage":{"input_tokens":1,"output_tokens":1}}}',
      '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"no","is_error":true}]},"toolUseResult":"User rejected tool use"}',
    ];
    const { summary } = follow("p1", lines);
    expect(summary.permissionDenials).toEqual([
      { tool_name: "Bash", tool_use_id: "t1", tool_input: { command: "rm x" } },
    ]);
  });

  test("a denied file tool's relative path is absolute in the denial, as claude -p reports it", () => {
    const lines = [
      '{"type":"user","promptId":"p1","origin":{"kind":"human"},"message":{"role":"user","content":"go"},"sessionId":"s","cwd":"/w"}',
      '{"type":"assistant","cwd":"/w","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Write","input":{"file_path":"a/b.txt","content":"x"}},{"type":"tool_use","id":"t2","name":"Write","input":{"file_path":"/abs.txt","content":"y"}}],"usage":{"input_tokens":1,"output_tokens":1}}}',
      '{"type":"user","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"no","is_error":true},{"type":"tool_result","tool_use_id":"t2","content":"no","is_error":true}]},"permissionDecision":{"decision":"reject","source":"hook"}}',
    ];
    expect(follow("p1", lines).summary.permissionDenials).toEqual([
      { tool_name: "Write", tool_use_id: "t1", tool_input: { file_path: "/w/a/b.txt", content: "x" } },
      { tool_name: "Write", tool_use_id: "t2", tool_input: { file_path: "/abs.txt", content: "y" } },
    ]);
  });

  test.each([
    // umbel -p's hook denied it (2.1.332's transcript of a PermissionRequest hook's deny)
    [{ decision: "reject", source: "hook", reasonType: "hook" }, {}],
    // dontAsk: claude -p names the mode as the reason
    [{ decision: "reject", source: "config", reasonType: "mode" }, { decision_reason_type: "mode" }],
  ])("a denial %j is claude -p's permission_denied line before the tool result", (decision, reason) => {
    const message = "Claude requested permissions to use Bash, but you haven't granted it yet.";
    const lines = [
      '{"type":"user","promptId":"p1","origin":{"kind":"human"},"message":{"role":"user","content":"go"},"sessionId":"s"}',
      '{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"touch f"}}],"usage":{"input_tokens":1,"output_tokens":1}}}',
      JSON.stringify({
        type: "user",
        uuid: "u2",
        message: {
          role: "user",
          content: [{ type: "tool_result", content: message, is_error: true, tool_use_id: "t1" }],
        },
        toolUseResult: `Error: ${message}`,
        permissionDecision: decision,
      }),
    ];
    const { messages } = follow("p1", lines);
    expect(messages.map((m) => m.type)).toEqual(["assistant", "system", "user"]);
    expect(messages[1]).toEqual({
      type: "system",
      subtype: "permission_denied",
      tool_name: "Bash",
      tool_use_id: "t1",
      ...reason,
      message,
      uuid: "u2-denied-t1",
      session_id: "s",
    });
  });
});
