import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { trackClaudeTurn } from "../../../src/core/providers/claude/stream.ts";
import { trackGeminiTurn } from "../../../src/core/providers/gemini/stream.ts";
import type { StreamMessage } from "../../../src/core/providers/transcript-types.ts";
import { TRANSCRIPT_LINES, TURN_KEYS } from "./gemini-samples.ts";

/**
 * A real gemini-cli 0.61.0 chat recording against the stub model: "first plain" → "plain answer";
 * "use tools" → two run_shell_command calls (each its own model response), then "after tools";
 * "think" → thoughts and "thought answer"; "fail" → API error 400, rolled back.
 */
const FIXTURES = join(import.meta.dir, "..", "..", "fixtures");
const LINES = readFileSync(join(FIXTURES, "gemini", "chat-print.jsonl"), "utf8")
  .trimEnd()
  .split("\n");
/** BeforeAgent timestamps: a little before each prompt line. */
const TOOL_TURN = "2026-11-30T00:29:31.300Z";
const THINK_TURN = "2026-11-30T00:29:33.900Z";
const FAIL_TURN = "2026-11-30T00:29:34.800Z";

function follow(promptId: string | null, lines: readonly string[] = LINES) {
  const tracker = trackGeminiTurn(promptId);
  const messages = lines.flatMap((line) => tracker.push(line));
  return { messages, summary: tracker.summary() };
}

const blocksOf = (m: StreamMessage | undefined) =>
  ((m?.message as { content?: Record<string, unknown>[] } | undefined)?.content ?? []) as Record<
    string,
    unknown
  >[];
const keys = (o: unknown) => Object.keys((o as object) ?? {}).sort();

/** Claude's own tracker on its fixture: the key sets every provider must print. */
const CLAUDE = (() => {
  const lines = readFileSync(join(FIXTURES, "claude-transcript.jsonl"), "utf8").trimEnd().split("\n");
  const run = (id: string) => {
    const tracker = trackClaudeTurn(id);
    return lines.flatMap((line) => tracker.push(line));
  };
  const [call, result] = run("5f7e9561-1ea8-47fe-bfe1-15425d771af0");
  const [error] = run("42f806a5-dae8-4b5a-9361-610e8a6e9914");
  return { call, result, error };
})();

describe("trackGeminiTurn on the real recording", () => {
  test("a tool turn: tool_use, tool_result, tool_use, tool_result, text, with claude's keys", () => {
    const { messages } = follow(TOOL_TURN);
    expect(messages.map((m) => m.type)).toEqual(["assistant", "user", "assistant", "user", "assistant"]);
    for (const m of messages.filter((m) => m.type === "assistant")) {
      expect(keys(m)).toEqual(keys(CLAUDE.call));
      expect(keys(m.message)).toEqual(keys(CLAUDE.call?.message));
    }
    for (const m of messages.filter((m) => m.type === "user")) expect(keys(m)).toEqual(keys(CLAUDE.result));
    const [call, result, , , answer] = messages;
    expect(call).toMatchObject({
      uuid: "40f27001-e85a-49ee-8e72-70e501245979",
      timestamp: "2026-11-30T00:29:31.573Z",
      message: {
        id: "40f27001-e85a-49ee-8e72-70e501245979",
        model: "gemini-3.8-flash",
        stop_reason: "tool_use",
        usage: { input_tokens: 12310, output_tokens: 31, cache_read_input_tokens: 0 },
        content: [
          {
            type: "tool_use",
            id: "run_shell_command__stub_call_3_0",
            name: "run_shell_command",
            input: { command: "echo hi", description: "stub bash" },
          },
        ],
      },
    });
    expect(result).toMatchObject({
      uuid: "7f4ee157-143d-44a8-a985-3c9ae9c0d4eb",
      message: {
        role: "user",
        content: [
          {
            type: "tool_result",
            tool_use_id: "run_shell_command__stub_call_3_0",
            content: "<untrusted_context>\nOutput: hi\nProcess Group PGID: 7308\n</untrusted_context>",
            is_error: false,
          },
        ],
      },
      tool_use_result: null,
      tool_result_meta: [
        {
          id: "run_shell_command__stub_call_3_0",
          permission_decision: { decision: "accept", source: null, reason_type: null },
        },
      ],
    });
    expect(answer).toMatchObject({
      message: { stop_reason: "end_turn", content: [{ type: "text", text: "after tools" }] },
    });
  });

  test("the tool turn's summary: three API messages, usage summed, request times from each boundary", () => {
    const { summary } = follow(TOOL_TURN);
    expect(summary).toMatchObject({
      assistantMessages: 3,
      stopReason: "end_turn",
      // (31.573 - 31.412) + (32.589 - 32.424) + (33.212 - 33.063): each reply after its prompt/result line.
      durationApiMs: 161 + 165 + 149,
      ttftMs: 161,
      timeToRequestMs: null,
      apiError: null,
      permissionDenials: [],
      complete: true,
      toolsPending: 0,
      sessionId: "77454b5f-2966-4d8c-b2eb-5a7a82f4d1c4",
    });
    expect(summary.usage).toMatchObject({
      input_tokens: 12310 + 12411 + 12513,
      output_tokens: 31 + 31 + 6,
      service_tier: "standard",
    });
    expect(summary.modelUsage["gemini-3.8-flash"]).toMatchObject({ outputTokens: 68, costUSD: null });
  });

  test("line by line: a call written with empty content prints nothing until its rewrite", () => {
    const tracker = trackGeminiTurn(TOOL_TURN);
    const start = LINES.findIndex((line) => line.includes('"use tools"'));
    const printed = LINES.slice(0, start + 3).map((line) => tracker.push(line).length);
    expect(printed.at(-1)).toBe(0); // the first write of the call's line
    expect(tracker.summary()).toMatchObject({ assistantMessages: 1, complete: false, toolsPending: 0 });
    expect(tracker.push(LINES[start + 4] ?? "")).toHaveLength(1); // rewritten with toolCalls
    expect(tracker.summary()).toMatchObject({ complete: false, toolsPending: 1, stopReason: "tool_use" });
    expect(tracker.push(LINES[start + 5] ?? "")).toHaveLength(1); // the functionResponse line
    expect(tracker.summary()).toMatchObject({ complete: false, toolsPending: 0 });
  });

  test("thoughts become one thinking block before the text, under the same message id", () => {
    const { messages, summary } = follow(THINK_TURN);
    expect(messages.map((m) => blocksOf(m)[0])).toEqual([
      { type: "thinking", thinking: "pondering", signature: "" },
      { type: "text", text: "thought answer" },
    ]);
    const ids = messages.map((m) => (m.message as { id: string }).id);
    expect(new Set(ids).size).toBe(1);
    expect(new Set(messages.map((m) => m.uuid)).size).toBe(2);
    expect(summary).toMatchObject({ assistantMessages: 1, complete: true, ttftMs: 85 });
  });

  test("an API error: claude's error line, the status and type from the error JSON, complete", () => {
    const { messages, summary } = follow(FAIL_TURN);
    expect(messages).toHaveLength(1);
    expect(keys(messages[0])).toEqual(keys(CLAUDE.error));
    expect(messages[0]).toMatchObject({
      is_api_error_message: true,
      api_error_status: 400,
      api_error_type: "INVALID_ARGUMENT",
      uuid: "cd3893e9-2db9-4842-b4a7-79891a52ff07",
      message: {
        model: "<synthetic>",
        content: [{ type: "text", text: expect.stringContaining("stub error 400") }],
      },
    });
    expect(summary).toMatchObject({
      assistantMessages: 0,
      apiError: { status: 400, type: "INVALID_ARGUMENT" },
      stopReason: "stop_sequence",
      durationApiMs: 0,
      ttftMs: null,
      modelUsage: {},
      complete: true,
    });
  });

  test("null promptId: the first real prompt fed (the session_context preamble is not one)", () => {
    const { messages, summary } = follow(null);
    expect(messages.map((m) => blocksOf(m)[0])).toEqual([{ type: "text", text: "plain answer" }]);
    expect(summary).toMatchObject({ assistantMessages: 1, complete: true, durationApiMs: 134 });
  });

  test("fed from a byte offset (no metadata line): no session id", () => {
    const start = LINES.findIndex((line) => line.includes('"use tools"'));
    const { summary } = follow(null, LINES.slice(start));
    expect(summary).toMatchObject({ assistantMessages: 3, sessionId: null });
  });
});

const rec = (o: Record<string, unknown>) => JSON.stringify(o);
const prompt = (id: string, at: string, text: string) =>
  rec({ id, timestamp: at, type: "user", content: [{ text }] });
const reply = (id: string, at: string, extra: Record<string, unknown>) =>
  rec({
    id,
    timestamp: at,
    type: "gemini",
    content: "",
    thoughts: [],
    tokens: { input: 100, output: 10, cached: 40, thoughts: 5, tool: 0, total: 115 },
    model: "gemini-x",
    ...extra,
  });
const call = (id: string, status = "success", response: Record<string, unknown> = { output: "ok" }) => ({
  id,
  name: "run_shell_command",
  args: { command: "echo" },
  result: [{ functionResponse: { id, name: "run_shell_command", response } }],
  status,
});
const results = (id: string, at: string, ...calls: [string, Record<string, unknown>][]) =>
  rec({
    id,
    timestamp: at,
    type: "user",
    content: calls.map(([callId, response]) => ({
      functionResponse: { id: callId, name: "run_shell_command", response },
    })),
  });
const T = (s: number) => `2026-01-01T00:00:${String(s).padStart(2, "0")}.000Z`;

type Case = {
  name: string;
  promptId: string | null;
  lines: string[];
  blocks: string[];
  summary: Record<string, unknown>;
};

const CASES: Case[] = [
  {
    name: "garbage, blank and half-written lines are skipped",
    promptId: T(1),
    lines: [
      "",
      "not json",
      "[1,2]",
      '{"id":"p1","timest',
      prompt("p1", T(1), "go"),
      "{",
      reply("r1", T(2), { content: "done" }),
    ],
    blocks: ["assistant:text"],
    summary: { assistantMessages: 1, complete: true },
  },
  {
    name: "a turn cancelled by Escape ends it without a line; later lines are not the turn's",
    promptId: T(1),
    lines: [
      prompt("p1", T(1), "hang"),
      rec({ id: "i1", timestamp: T(3), type: "info", content: "Request cancelled." }),
      rec({ $set: { messages: [] } }),
      reply("late", T(4), { content: "not ours" }),
    ],
    blocks: [],
    summary: { assistantMessages: 0, complete: true, apiError: null, durationApiMs: null },
  },
  {
    name: "text and tool calls in one response: text first, the tool_use once the line is rewritten",
    promptId: T(1),
    lines: [
      prompt("p1", T(1), "go"),
      reply("r1", T(2), { content: "let me look" }),
      reply("r1", T(2), { content: "let me look", toolCalls: [call("c1")] }),
      results("u1", T(4), ["c1", { output: "ok" }]),
      reply("r2", T(5), { content: "done" }),
    ],
    blocks: ["assistant:text", "assistant:tool_use", "user:tool_result", "assistant:text"],
    summary: { assistantMessages: 2, complete: true, toolsPending: 0, durationApiMs: 2000, ttftMs: 1000 },
  },
  {
    name: "a failed tool is answered by its result line, not a denial",
    promptId: T(1),
    lines: [
      prompt("p1", T(1), "go"),
      reply("r1", T(2), { toolCalls: [call("c1", "error", { error: "boom" })] }),
      results("u1", T(3), ["c1", { error: "boom" }]),
    ],
    blocks: ["assistant:tool_use", "user:tool_result"],
    summary: { complete: false, toolsPending: 0, stopReason: "tool_use", permissionDenials: [] },
  },
  {
    name: "the next real prompt ends the turn",
    promptId: null,
    lines: [
      prompt("p1", T(1), "one"),
      reply("r1", T(2), { content: "a" }),
      prompt("p2", T(3), "two"),
      reply("r2", T(4), { content: "b" }),
    ],
    blocks: ["assistant:text"],
    summary: { assistantMessages: 1, complete: true },
  },
  {
    name: "prompts before promptId are earlier turns",
    promptId: T(3),
    lines: [
      prompt("p1", T(1), "one"),
      reply("r1", T(2), { content: "a" }),
      prompt("p2", T(3), "two"),
      reply("r2", T(4), { content: "b" }),
    ],
    blocks: ["assistant:text"],
    summary: { assistantMessages: 1, ttftMs: 1000 },
  },
];

describe("trackGeminiTurn on synthetic lines", () => {
  test.each(CASES)("$name", ({ promptId, lines, blocks, summary }) => {
    const { messages, summary: got } = follow(promptId, lines);
    expect(messages.map((m) => `${m.type}:${String(blocksOf(m)[0]?.type)}`)).toEqual(blocks);
    expect(got).toMatchObject(summary);
  });

  test("usage: cached input is a cache read, thinking tokens count as output", () => {
    const { messages, summary } = follow(T(1), [
      prompt("p1", T(1), "go"),
      reply("r1", T(2), { content: "x" }),
    ]);
    const usage = { input_tokens: 60, cache_read_input_tokens: 40, cache_creation_input_tokens: 0 };
    expect((messages[0]?.message as { usage?: unknown } | undefined)?.usage).toMatchObject({
      ...usage,
      output_tokens: 15,
      output_tokens_details: { thinking_tokens: 5 },
    });
    expect(summary.usage).toMatchObject({ ...usage, output_tokens: 15 });
    expect(summary.modelUsage["gemini-x"]).toMatchObject({ inputTokens: 60, thinkingTokens: 5 });
  });

  test("a tool error: is_error, the response's JSON as the content", () => {
    const { messages } = follow(T(1), [
      prompt("p1", T(1), "go"),
      reply("r1", T(2), { toolCalls: [call("c1", "error", { error: "boom" })] }),
      results("u1", T(3), ["c1", { error: "boom" }]),
    ]);
    expect(blocksOf(messages[1])).toEqual([
      { tool_use_id: "c1", type: "tool_result", content: '{"error":"boom"}', is_error: true },
    ]);
  });

  test("thought subjects start paragraphs", () => {
    const thoughts = [
      { subject: "Plan", description: "first" },
      { subject: "", description: " more" },
      { subject: "Check", description: "second" },
    ];
    const { messages } = follow(T(1), [
      prompt("p1", T(1), "go"),
      reply("r1", T(2), { content: "x", thoughts }),
    ]);
    expect(blocksOf(messages[0])[0]).toMatchObject({
      thinking: "**Plan**\n\nfirst more\n\n**Check**\n\nsecond",
    });
  });
});

describe("trackGeminiTurn on a denied tool (the real re-append of history under new ids)", () => {
  test("the denied call is printed, is a permission denial, and the cancel ends the turn", () => {
    const { messages, summary } = follow(TURN_KEYS.denied, TRANSCRIPT_LINES);
    expect(messages.map((m) => `${m.type}:${String(blocksOf(m)[0]?.type)}`)).toEqual(["assistant:tool_use"]);
    expect(summary).toMatchObject({
      assistantMessages: 1,
      complete: true,
      toolsPending: 0,
      permissionDenials: [
        {
          tool_name: "run_shell_command",
          tool_use_id: "run_shell_command__stub_call_48_0",
          tool_input: { command: "touch denied.txt", description: "stub bash" },
        },
      ],
    });
  });

  test("the next turn skips the re-appended prompts (older timestamps)", () => {
    const { messages, summary } = follow(TURN_KEYS.lastPlain, TRANSCRIPT_LINES);
    expect(messages.map((m) => blocksOf(m)[0])).toEqual([
      { type: "text", text: "STUB-REPLY len=10 sha=6736ad2e43bf head=last plain" },
    ]);
    expect(summary).toMatchObject({ assistantMessages: 1, complete: true });
  });

  test("a turn cancelled while hanging prints nothing and is complete", () => {
    const { messages, summary } = follow(TURN_KEYS.hang, TRANSCRIPT_LINES);
    expect(messages).toEqual([]);
    expect(summary).toMatchObject({ assistantMessages: 0, complete: true, apiError: null });
  });
});

describe("a turn an AfterTool hook halted (umbel -p --max-turns, real 0.61.0)", () => {
  // The hook printed {"continue":false,"stopReason":"Reached maximum number of turns (1)"} after the
  // first `touch one.txt`: no functionResponse line, only the results inside toolCalls, then
  // "Agent execution stopped: …" and no AfterAgent.
  const HALTED = readFileSync(join(FIXTURES, "gemini", "chat-halted.jsonl"), "utf8")
    .trimEnd()
    .split("\n");

  test("the call and its result print; the stop line completes the turn", () => {
    const { messages, summary } = follow("2026-11-30T00:33:43.350Z", HALTED);
    expect(messages.map((m) => m.type)).toEqual(["assistant", "user"]);
    const [call] = blocksOf(messages[0]);
    const [result] = blocksOf(messages[1]);
    expect(call).toMatchObject({
      type: "tool_use",
      name: "run_shell_command",
      input: { command: "touch one.txt" },
    });
    // gemini records the halted call's result as the hook's stop reason (the command did run).
    expect(result).toMatchObject({
      type: "tool_result",
      tool_use_id: call?.id,
      is_error: true,
      content: '{"error":"Reached maximum number of turns (1)"}',
    });
    expect(summary).toMatchObject({
      assistantMessages: 1,
      complete: true,
      toolsPending: 0,
      stopReason: "tool_use",
    });
  });
});
