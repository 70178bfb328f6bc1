import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { trackClaudeTurn } from "../../../src/core/providers/claude/stream.ts";
import { trackCodexTurn } from "../../../src/core/providers/codex/stream.ts";
import type { StreamMessage } from "../../../src/core/providers/transcript-types.ts";

/**
 * A real codex-cli 0.171.0 rollout against a stub model, four turns: "first plain" → text; "use
 * tools" → two exec_command calls, each its own response, then "after tools"; "think" → reasoning
 * then text in one response; "fail" → task_complete with the stub's HTTP 400 as error.
 */
const FIXTURES = join(import.meta.dir, "..", "..", "fixtures");
const TEXT = readFileSync(join(FIXTURES, "codex", "rollout-print.jsonl"), "utf8");
const LINES = TEXT.trimEnd().split("\n");
const PLAIN_TURN = "01a229db-39b0-75d0-af4e-5e78ce9b426d";
const TOOLS_TURN = "01a229db-3c23-7c41-9181-0661bf821ddf";
const THINK_TURN = "01a229db-4048-7e23-8889-93869be88167";
const FAIL_TURN = "01a229db-4252-7c62-9880-b56b032d7669";
const SESSION = "01a229db-3800-75f0-8038-014cde078113";

function follow(promptId: string | null, lines: readonly string[] = LINES) {
  const tracker = trackCodexTurn(promptId);
  const messages = lines.flatMap((line) => tracker.push(line));
  return { messages, summary: tracker.summary() };
}

type Msg = { id: string; model: string | null; stop_reason: string | null; usage: Record<string, unknown> };
const msg = (m: StreamMessage | undefined) =>
  (m?.message ?? {}) as Msg & { content: Record<string, unknown>[] };
const blockTypes = (messages: StreamMessage[]) => messages.map((m) => msg(m).content[0]?.type);
const keys = (value: unknown) => Object.keys((value as object) ?? {}).sort();

describe("trackCodexTurn on a real rollout", () => {
  test("a tool turn prints claude's tracker's shapes: the same keys on every line", () => {
    const { messages } = follow(TOOLS_TURN);
    expect(messages.map((m) => m.type)).toEqual(["assistant", "user", "assistant", "user", "assistant"]);
    const claude = readFileSync(join(FIXTURES, "claude-transcript.jsonl"), "utf8").trimEnd().split("\n");
    const reference = trackClaudeTurn("5f7e9561-1ea8-47fe-bfe1-15425d771af0");
    const [claudeCall, claudeResult] = claude.flatMap((line) => reference.push(line));
    for (const m of messages.filter((m) => m.type === "assistant")) {
      expect(keys(m)).toEqual(keys(claudeCall));
      expect(keys(m.message)).toEqual(keys(claudeCall?.message));
    }
    const [, result] = messages;
    expect(keys(result)).toEqual(keys(claudeResult));
    expect(keys(result?.message)).toEqual(keys(claudeResult?.message));
    expect(keys(msg(result).content[0])).toEqual(keys(msg(claudeResult).content[0]));
    expect(result?.tool_result_meta).toEqual([
      { id: "call_stub_2_0", permission_decision: { decision: "accept", source: null, reason_type: null } },
    ]);
  });

  test("a tool turn: tool_use blocks from function_call, results from function_call_output", () => {
    const { messages } = follow(TOOLS_TURN);
    const [call1, out1, call2, out2, answer] = messages;
    expect(msg(call1)).toMatchObject({
      id: "resp_stub_2",
      model: "stub-model",
      stop_reason: "tool_use",
      content: [{ type: "tool_use", id: "call_stub_2_0", name: "exec_command", input: { cmd: "echo hi" } }],
    });
    expect(msg(call2).content[0]).toMatchObject({ id: "call_stub_3_0", input: { cmd: "echo two" } });
    for (const [out, id] of [
      [out1, "call_stub_2_0"],
      [out2, "call_stub_3_0"],
    ] as const) {
      const block = msg(out).content[0];
      expect(block).toMatchObject({ type: "tool_result", tool_use_id: id, is_error: false });
      expect(String(block?.content)).toStartWith("Chunk ID:");
      expect(out).toMatchObject({ tool_use_result: null, session_id: SESSION, parent_tool_use_id: null });
    }
    expect(msg(answer)).toMatchObject({
      id: "resp_stub_4",
      stop_reason: "end_turn",
      content: [{ type: "text", text: "after tools" }],
    });
    expect(answer).toMatchObject({ uuid: "msg_stub_4_0", timestamp: "2026-11-30T00:29:23.983Z" });
    expect(msg(answer).usage).toMatchObject({ input_tokens: 5303, output_tokens: 16 });
  });

  test("the summary: one API message per response, usage summed, timed from prompt or tool output", () => {
    const { summary } = follow(TOOLS_TURN);
    expect(summary).toMatchObject({
      assistantMessages: 3,
      stopReason: "end_turn",
      // (23.546 - 23.415) + (23.770 - 23.694) + (23.989 - 23.916): each record minus the prompt or the tool output before it.
      durationApiMs: 280,
      ttftMs: 163,
      timeToRequestMs: null,
      apiError: null,
      permissionDenials: [],
      complete: true,
      toolsPending: 0,
      sessionId: SESSION,
    });
    expect(summary.usage).toMatchObject({
      input_tokens: 3 * (5303 - 0),
      cache_read_input_tokens: 0,
      output_tokens: 32 + 33 + 16,
      service_tier: "standard",
    });
    expect(summary.modelUsage["stub-model"]).toMatchObject({
      inputTokens: 15909,
      outputTokens: 81,
      costUSD: null,
    });
  });

  test("reasoning then text in one response: a thinking and a text line with one message id", () => {
    const { messages, summary } = follow(THINK_TURN);
    expect(blockTypes(messages)).toEqual(["thinking", "text"]);
    expect(msg(messages[0]).content[0]).toEqual({ type: "thinking", thinking: "pondering", signature: "" });
    expect(messages.map((m) => msg(m).id)).toEqual(["resp_stub_5", "resp_stub_5"]);
    expect(summary).toMatchObject({ assistantMessages: 1, durationApiMs: 71, ttftMs: 98, complete: true });
  });

  test("a failed turn: claude's API error line with the codex error; zero usage", () => {
    const { messages, summary } = follow(FAIL_TURN);
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      type: "assistant",
      is_api_error_message: true,
      api_error_status: null,
      api_error_type: "other",
      message: {
        model: "<synthetic>",
        content: [{ type: "text", text: expect.stringContaining("stub error 400") }],
      },
    });
    expect(summary).toMatchObject({
      assistantMessages: 0,
      apiError: { status: null, type: "other" },
      durationApiMs: 0,
      ttftMs: null,
      modelUsage: {},
      stopReason: null,
      complete: true,
    });
    expect(summary.usage).toMatchObject({ input_tokens: 0, output_tokens: 0 });
  });

  test("promptId null follows the first turn started; later turns are not printed", () => {
    const { messages, summary } = follow(null);
    expect(messages.map((m) => msg(m).content[0])).toEqual([{ type: "text", text: "plain answer" }]);
    expect(summary).toMatchObject({ assistantMessages: 1, ttftMs: 190, sessionId: SESSION });
    expect(follow(PLAIN_TURN)).toEqual(follow(null));
  });

  test("fed from a byte offset inside an earlier turn (a cut first line): the same output", () => {
    const cut = TEXT.slice(TEXT.indexOf('"ordinal":12') - 20).split("\n");
    expect(() => JSON.parse(cut[0] ?? "")).toThrow();
    expect(follow(TOOLS_TURN, cut)).toEqual(follow(TOOLS_TURN));
    expect(follow(null, cut).messages.map((m) => m.type)).toEqual(
      follow(TOOLS_TURN).messages.map((m) => m.type),
    );
  });

  test("line by line: a tool is pending from its record until its output", () => {
    const tracker = trackCodexTurn(TOOLS_TURN);
    const pending: number[] = [];
    for (const line of LINES.slice(0, 28)) {
      tracker.push(line);
      pending.push(tracker.summary().toolsPending);
    }
    expect(pending.slice(18)).toEqual([0, 1, 1, 1, 0, 0, 1, 1, 1, 0]);
    expect(tracker.summary()).toMatchObject({
      assistantMessages: 2,
      stopReason: "tool_use",
      complete: false,
    });
  });
});

// Synthetic rollout lines, in codex's shapes, 10 ms apart from a fixed instant.
const T = "turn-b";
let ordinal = 0;
function rec(type: string, payload: Record<string, unknown>): string {
  const timestamp = new Date(Date.UTC(2026, 10, 30) + ordinal * 10).toISOString();
  return JSON.stringify({ timestamp, ordinal: ordinal++, type, payload });
}
const meta = (turn: string) => ({ internal_chat_message_metadata_passthrough: { turn_id: turn } });
const started = (turn = T) => rec("event_msg", { type: "task_started", turn_id: turn });
const context = (model: string, turn = T) => rec("turn_context", { turn_id: turn, model });
const user = (text: string, turn = T) =>
  rec("response_item", {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text }],
    ...meta(turn),
  });
const say = (id: string, text: string, turn = T) =>
  rec("response_item", {
    type: "message",
    id,
    role: "assistant",
    content: [{ type: "output_text", text }],
    ...meta(turn),
  });
const call = (callId: string, args: string, turn = T) =>
  rec("response_item", {
    type: "function_call",
    name: "exec_command",
    arguments: args,
    call_id: callId,
    ...meta(turn),
  });
const custom = (callId: string, input: string) =>
  rec("response_item", {
    type: "custom_tool_call",
    id: `ctc_${callId}`,
    name: "apply_patch",
    input,
    call_id: callId,
    ...meta(T),
  });
const output = (callId: string, out: unknown, type = "function_call_output") =>
  rec("response_item", { type, call_id: callId, output: out, ...meta(T) });
const usage = (input: number, output: number, cached = 0, write = 0, reasoning = 0) => ({
  input_tokens: input,
  cached_input_tokens: cached,
  cache_write_input_tokens: write,
  output_tokens: output,
  reasoning_output_tokens: reasoning,
  total_tokens: input + output,
});
const record = (responseId: string, u: Record<string, number>, turn = T) =>
  rec("token_usage_record", {
    thread_id: "th",
    turn_id: turn,
    session_id: "sess",
    response_id: responseId,
    usage: u,
  });
const done = (extra: Record<string, unknown> = {}, turn = T) =>
  rec("event_msg", { type: "task_complete", turn_id: turn, time_to_first_token_ms: 12, ...extra });
const aborted = () => rec("event_msg", { type: "turn_aborted", turn_id: T, reason: "interrupted" });

type Case = {
  name: string;
  promptId: string | null;
  lines: string[];
  blocks: (string | undefined)[];
  types: string[];
  summary: Record<string, unknown>;
};
const cases: Case[] = [
  {
    name: "garbage, blank and half-written lines are skipped",
    promptId: T,
    lines: [
      "",
      "   ",
      "{",
      "not json",
      "[1,2]",
      '{"type":"event_msg"}',
      started(),
      say("m1", "hi"),
      '{"timestamp":"20',
      record("r1", usage(10, 2)),
      done(),
    ],
    blocks: ["text"],
    types: ["assistant"],
    summary: { assistantMessages: 1, complete: true, ttftMs: 12, sessionId: "sess" },
  },
  {
    name: "promptId null: another turn's tail first, then the first turn started",
    promptId: null,
    lines: [
      say("old", "stale", "turn-a"),
      record("ra", usage(1, 1), "turn-a"),
      done({}, "turn-a"),
      started(),
      say("m1", "fresh"),
      record("r1", usage(10, 2)),
      done(),
    ],
    blocks: ["text"],
    types: ["assistant"],
    summary: { assistantMessages: 1, complete: true },
  },
  {
    name: "an interrupted turn: the waiting call is flushed without usage; no user line for <turn_aborted>",
    promptId: T,
    lines: [
      started(),
      user("go"),
      call("c1", '{"cmd":"sleep 9"}'),
      user("<turn_aborted>\nThe user interrupted…"),
      aborted(),
      say("m9", "next turn's"),
    ],
    blocks: ["tool_use"],
    types: ["assistant"],
    summary: {
      assistantMessages: 1,
      stopReason: "tool_use",
      toolsPending: 1,
      complete: true,
      ttftMs: null,
      durationApiMs: 10,
    },
  },
  {
    name: "custom_tool_call: input under `input`, its output a tool result",
    promptId: T,
    lines: [
      started(),
      user("patch"),
      custom("c2", "*** Begin Patch"),
      record("r1", usage(10, 5)),
      output("c2", "Success", "custom_tool_call_output"),
      say("m2", "patched"),
      record("r2", usage(20, 3)),
      done(),
    ],
    blocks: ["tool_use", undefined, "text"],
    types: ["assistant", "user", "assistant"],
    summary: { assistantMessages: 2, toolsPending: 0, stopReason: "end_turn", complete: true },
  },
  {
    name: "a record after the output that flushed its call is credited to that response",
    promptId: T,
    lines: [
      started(),
      user("go"),
      call("c1", "{}"),
      output("c1", "ok"),
      record("r1", usage(10, 5)),
      say("m2", "done"),
      record("r2", usage(20, 3)),
      done(),
    ],
    blocks: ["tool_use", undefined, "text"],
    types: ["assistant", "user", "assistant"],
    summary: { assistantMessages: 2, toolsPending: 0 },
  },
  {
    name: "no task_started seen and promptId null: nothing is followed",
    promptId: null,
    lines: [say("m1", "hi"), record("r1", usage(10, 2)), done()],
    blocks: [],
    types: [],
    summary: { assistantMessages: 0, complete: false, durationApiMs: null, stopReason: null },
  },
];

describe("trackCodexTurn on synthetic lines", () => {
  test.each(cases)("$name", ({ promptId, lines, blocks, types, summary }) => {
    const got = follow(promptId, lines);
    expect(got.messages.map((m) => m.type)).toEqual(types as StreamMessage["type"][]);
    expect(got.messages.map((m) => (m.type === "assistant" ? msg(m).content[0]?.type : undefined))).toEqual(
      blocks,
    );
    expect(got.summary).toMatchObject(summary);
  });

  test("usage maps codex's counts onto claude's: cache reads out of input, reasoning as thinking", () => {
    const { messages, summary } = follow(T, [
      started(),
      context("gpt-x"),
      say("m1", "hi"),
      record("r1", usage(1000, 50, 800, 30, 20)),
      done(),
    ]);
    expect(msg(messages[0])).toMatchObject({ id: "r1", model: "gpt-x" });
    expect(msg(messages[0]).usage).toMatchObject({
      input_tokens: 200,
      cache_read_input_tokens: 800,
      cache_creation_input_tokens: 30,
      output_tokens: 50,
      output_tokens_details: { thinking_tokens: 20 },
    });
    expect(summary.modelUsage["gpt-x"]).toMatchObject({
      inputTokens: 200,
      cacheReadInputTokens: 800,
      thinkingTokens: 20,
    });
  });

  test("arguments that are not JSON are kept raw; a flushed response takes its first item's id", () => {
    const { messages } = follow(T, [started(), call("c1", "{oops"), aborted()]);
    expect(msg(messages[0])).toMatchObject({
      id: "c1",
      usage: null,
      content: [{ type: "tool_use", id: "c1", input: { arguments: "{oops" } }],
    });
  });

  test.each([
    ["exit code 0", "Chunk ID: a\nWall time: 0 seconds\nProcess exited with code 0\nOutput:\nok\n", false],
    [
      "a non-zero exit code",
      "Chunk ID: a\nWall time: 0 seconds\nProcess exited with code 2\nOutput:\nno\n",
      true,
    ],
    [
      "the marker inside the command's output",
      "Chunk ID: a\nProcess exited with code 0\nOutput:\nProcess exited with code 1\n",
      false,
    ],
    ["structured output with success false", { content: "denied", success: false }, true],
    ["a refused escalation", "approval policy is Never; reject command — you cannot ask", true],
    // -s read-only -a never (codex exec's default, umbel exec's): measured on 0.171.0
    [
      "a patch the sandbox refused",
      "patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings",
      true,
    ],
  ])("is_error for %s", (_, out, isError) => {
    const { messages } = follow(T, [
      started(),
      call("c1", "{}"),
      record("r1", usage(1, 1)),
      output("c1", out),
    ]);
    const block = msg(messages[1]).content[0];
    expect(block).toMatchObject({ is_error: isError });
    expect(typeof block?.content).toBe("string");
  });

  test.each([
    "approval policy is Never; reject command — you cannot ask for escalated permissions",
    "patch rejected: writing is blocked by read-only sandbox; rejected by user approval settings",
  ])("what the approval policy refuses is a permission denial: %s", (refusal) => {
    const { messages, summary } = follow(T, [
      started(),
      call("c1", '{"cmd":"touch x","sandbox_permissions":"require_escalated"}'),
      record("r1", usage(1, 1)),
      output("c1", refusal),
    ]);
    expect(messages[1]).toMatchObject({
      tool_result_meta: [{ id: "c1", permission_decision: { decision: "deny" } }],
    });
    expect(summary.permissionDenials).toEqual([
      {
        tool_name: "exec_command",
        tool_use_id: "c1",
        tool_input: { cmd: "touch x", sandbox_permissions: "require_escalated" },
      },
    ]);
  });

  test.each([
    [
      {
        message: "unexpected status 401 Unauthorized: x",
        codex_error_info: { http_connection_failed: { http_status_code: 401 } },
      },
      401,
      "http_connection_failed",
    ],
    [
      { message: "exceeded retry limit, last status: 429 Too Many Requests", codex_error_info: "other" },
      429,
      "other",
    ],
    [
      { message: "We’re currently experiencing high demand", codex_error_info: "internal_server_error" },
      null,
      "internal_server_error",
    ],
  ])("task_complete error %#: status and type", (error, status, type) => {
    const { messages, summary } = follow(T, [started(), user("x"), done({ error })]);
    expect(summary.apiError).toEqual({ status, type });
    expect(messages[0]).toMatchObject({ api_error_status: status, api_error_type: type, uuid: `${T}:error` });
  });
});
