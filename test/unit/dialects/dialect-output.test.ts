import { describe, expect, test } from "bun:test";
import { codexUsage, createCodexItems } from "../../../src/core/dialects/codex.ts";
import {
  apiErrorTexts,
  geminiErrorExit,
  geminiEvents,
  geminiStats,
  geminiStreamStats,
} from "../../../src/core/dialects/gemini.ts";
import { commandResult, toolKind } from "../../../src/core/dialects/tool-kind.ts";
import { createTurnTally } from "../../../src/core/dialects/turn-tally.ts";
import { assistantLine, claudeUsage, toolResultLine } from "../../../src/core/providers/stream-shape.ts";
import type { StreamMessage, TurnSummary } from "../../../src/core/providers/transcript-types.ts";
import { modelUsageOf } from "../../../src/core/providers/usage.ts";

/**
 * The gemini and codex dialects are filled from the same claude-shaped messages every provider's
 * tracker renders; these are what gemini -p 0.61.0 and codex exec 0.171.0 print (measured:
 * docs/providers.md), built from one scripted turn: a shell call, its result, then the answer.
 */
const usage = claudeUsage({ input: 900, cacheRead: 100, cacheCreation: 0, output: 30, thinking: 5 });
const at = (ms: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, 0, ms)).toISOString();
const base = { model: "m1", usage, sessionId: "s1", timestamp: null };

function turn(
  command = "echo hi",
  output = "Chunk ID: a\nWall time: 0.1\nProcess exited with code 0\nOutput:\nhi\n",
): StreamMessage[] {
  return [
    assistantLine({
      ...base,
      id: "r1",
      block: { type: "tool_use", id: "c1", name: "exec_command", input: { cmd: command } },
      stopReason: "tool_use",
      uuid: "u1",
      timestamp: at(0),
    }),
    toolResultLine({
      results: [{ toolUseId: "c1", content: output, isError: false }],
      sessionId: "s1",
      uuid: "u2",
      timestamp: at(250),
    }),
    assistantLine({
      ...base,
      id: "r2",
      block: { type: "thinking", thinking: "pondering", signature: "" },
      stopReason: "end_turn",
      uuid: "u3",
      timestamp: at(300),
    }),
    assistantLine({
      ...base,
      id: "r2",
      block: { type: "text", text: "done" },
      stopReason: "end_turn",
      uuid: "u4",
      timestamp: at(300),
    }),
  ];
}

function summaryOf(): TurnSummary {
  return {
    assistantMessages: 2,
    usage: claudeUsage({ input: 1800, cacheRead: 200, cacheCreation: 0, output: 60, thinking: 10 }),
    modelUsage: modelUsageOf([
      { model: "m1", usage },
      { model: "m1", usage },
    ]),
    stopReason: "end_turn",
    durationApiMs: 420,
    ttftMs: null,
    timeToRequestMs: null,
    apiError: null,
    permissionDenials: [],
    complete: true,
    toolsPending: 0,
    sessionId: "s1",
  };
}

describe("the turn tally", () => {
  test("calls, their results and the requests per model; umbel's StructuredOutput is left out", () => {
    const tally = createTurnTally();
    const steps = [
      ...turn(),
      assistantLine({
        ...base,
        id: "r3",
        block: { type: "tool_use", id: "c2", name: "mcp__umbel_structured__StructuredOutput", input: {} },
        stopReason: "tool_use",
        uuid: "u5",
      }),
    ].flatMap((m) => tally.push(m));
    expect(steps.map((s) => s.kind)).toEqual(["call", "result", "thinking", "text"]);
    expect(tally.requests()).toEqual({ m1: 3 });
    expect(tally.calls()).toMatchObject([
      { id: "c1", name: "exec_command", result: { text: expect.stringContaining("hi"), isError: false } },
    ]);
  });
});

describe("gemini -p's shapes", () => {
  test("json stats: tokens rebuilt from claude's usage, requests, tool counts and time", () => {
    const tally = createTurnTally();
    for (const m of turn()) tally.push(m);
    const stats = geminiStats({
      summary: summaryOf(),
      requests: tally.requests(),
      calls: tally.calls(),
      deniedIds: new Set(),
    });
    // claude input 900 excludes the 100 cached; output 30 includes 5 of thinking (each message).
    const tokens = {
      input: 1800,
      prompt: 2000,
      candidates: 50,
      total: 2060,
      cached: 200,
      thoughts: 10,
      tool: 0,
    };
    const api = { totalRequests: 2, totalErrors: 0, totalLatencyMs: 420 };
    expect(stats).toEqual({
      models: { m1: { api: { ...api, errorsByType: {} }, tokens, roles: { main: { ...api, tokens } } } },
      tools: {
        totalCalls: 1,
        totalSuccess: 1,
        totalFail: 0,
        totalDurationMs: 250,
        totalDecisions: { accept: 1, reject: 0, modify: 0, auto_accept: 0 },
        byName: {
          exec_command: {
            count: 1,
            success: 1,
            fail: 0,
            durationMs: 250,
            decisions: { accept: 1, reject: 0, modify: 0, auto_accept: 0 },
          },
        },
      },
      files: { totalLinesAdded: 0, totalLinesRemoved: 0 },
    });
  });

  test("stream-json stats, API error texts and exit codes", () => {
    expect(geminiStreamStats({ summary: summaryOf(), durationMs: 1234, toolCalls: 1, model: "m1" })).toEqual({
      total_tokens: 2060,
      input_tokens: 2000,
      output_tokens: 50,
      cached: 200,
      input: 1800,
      duration_ms: 1234,
      tool_calls: 1,
      models: { m1: { total_tokens: 2060, input_tokens: 2000, output_tokens: 50, cached: 200, input: 1800 } },
    });
    const body = '{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}';
    expect(apiErrorTexts(`[API Error: ${body}]`)).toEqual({ stream: `[API Error: ${body}]`, json: body });
    expect(apiErrorTexts(body)).toEqual({ stream: `[API Error: ${body}]`, json: body });
    // gemini -p exits with the HTTP status; the OS keeps it modulo 256 (measured: 400 → 144).
    expect([400, 429, 500, null].map((s) => geminiErrorExit(s))).toEqual([144, 173, 244, 1]);
  });
});

describe("what the dialects print of a call", () => {
  test("codex: a relative file change is printed absolute, under the worker's folder", () => {
    const tally = createTurnTally();
    const items = createCodexItems({ provider: "codex", structured: false, cwd: () => "/w" });
    const call = assistantLine({
      ...base,
      id: "r9",
      block: { type: "tool_use", id: "p1", name: "apply_patch", input: { input: "*** Add File: a.txt\n+x" } },
      stopReason: "tool_use",
      uuid: "u9",
    });
    const [started] = tally.push(call).flatMap((step) => items.push(step));
    expect(started).toEqual({
      type: "item.started",
      item: {
        id: "item_0",
        type: "file_change",
        changes: [{ path: "/w/a.txt", kind: "add" }],
        status: "in_progress",
      },
    });
  });

  test("gemini: a shell result's output is the command's, as gemini displays it; no usage lists the model", () => {
    const tally = createTurnTally();
    const out = "<untrusted_context>\nOutput: hi\nProcess Group PGID: 7\n</untrusted_context>";
    const steps = turn("echo hi", out).flatMap((m) => tally.push(m));
    const result = steps.find((s) => s.kind === "result");
    expect(result && geminiEvents(result, "now")).toEqual([
      { type: "tool_result", timestamp: at(250), tool_id: "c1", status: "success", output: "hi" },
    ]);
    expect(geminiStreamStats({ summary: null, durationMs: 0, toolCalls: 0, model: "m1" }).models).toEqual({
      m1: { total_tokens: 0, input_tokens: 0, output_tokens: 0, cached: 0, input: 0 },
    });
  });
});

describe("gemini -p's tool_result for a tool gemini -p does not offer (umbel -p excludes the same)", () => {
  test("the error's own words, typed tool_not_registered, as gemini -p prints them", () => {
    const tally = createTurnTally();
    const error = 'Tool "run_shell_command" not found. Did you mean one of: "update_topic"?';
    const call = assistantLine({
      ...base,
      id: "r1",
      block: { type: "tool_use", id: "c1", name: "run_shell_command", input: { command: "touch f" } },
      stopReason: "tool_use",
      uuid: "u1",
      timestamp: at(0),
    });
    const result = toolResultLine({
      results: [{ toolUseId: "c1", content: JSON.stringify({ error }), isError: true }],
      sessionId: "s1",
      uuid: "u2",
      timestamp: at(250),
    });
    const step = [call, result].flatMap((m) => tally.push(m)).find((s) => s.kind === "result");
    // gemini -p decided nothing about a tool it does not have: a failed call, no decision.
    const tools = geminiStats({
      summary: null,
      requests: {},
      calls: tally.calls(),
      deniedIds: new Set(),
    }).tools;
    expect(tools).toMatchObject({
      totalCalls: 1,
      totalFail: 1,
      totalDecisions: { accept: 0, reject: 0, modify: 0, auto_accept: 0 },
      byName: { run_shell_command: { fail: 1, decisions: { accept: 0, reject: 0 } } },
    });
    expect(step && geminiEvents(step, "now")).toEqual([
      {
        type: "tool_result",
        timestamp: at(250),
        tool_id: "c1",
        status: "error",
        output: error,
        error: { type: "tool_not_registered", message: error },
      },
    ]);
  });
});

describe("codex exec's items", () => {
  test("a command starts and completes as one item; reasoning and the message follow; usage as codex counts it", () => {
    const tally = createTurnTally();
    const items = createCodexItems({ provider: "codex", structured: false, cwd: () => "/w" });
    const events = turn().flatMap((m) => tally.push(m).flatMap((s) => items.push(s)));
    expect(events).toEqual([
      {
        type: "item.started",
        item: {
          id: "item_0",
          type: "command_execution",
          command: "echo hi",
          aggregated_output: "",
          exit_code: null,
          status: "in_progress",
        },
      },
      {
        type: "item.completed",
        item: {
          id: "item_0",
          type: "command_execution",
          command: "echo hi",
          aggregated_output: "hi\n",
          exit_code: 0,
          status: "completed",
        },
      },
      { type: "item.completed", item: { id: "item_1", type: "reasoning", text: "pondering" } },
      { type: "item.completed", item: { id: "item_2", type: "agent_message", text: "done" } },
    ]);
    expect(codexUsage(summaryOf())).toEqual({
      input_tokens: 2000,
      cached_input_tokens: 200,
      cache_write_input_tokens: 0,
      output_tokens: 60,
      reasoning_output_tokens: 10,
    });
  });

  test("--output-schema: no text item as it streams; the object's JSON is the final message", () => {
    const tally = createTurnTally();
    const items = createCodexItems({ provider: "claude", structured: true, cwd: () => null });
    const kinds = turn()
      .flatMap((m) => tally.push(m).flatMap((s) => items.push(s)))
      .map((e) => (e.item as { type: string }).type);
    expect(kinds).toEqual(["command_execution", "command_execution", "reasoning"]);
    expect(items.finalMessage('{"a":1}')).toEqual({
      type: "item.completed",
      item: { id: "item_2", type: "agent_message", text: '{"a":1}' },
    });
  });

  test.each([
    ["Bash", { command: "ls" }, { kind: "command", command: "ls" }],
    ["run_shell_command", { command: "ls" }, { kind: "command", command: "ls" }],
    ["local_shell", { command: ["bash", "-lc", "ls"] }, { kind: "command", command: "bash -lc ls" }],
    [
      "apply_patch",
      {
        input:
          "*** Begin Patch\n*** Add File: a.txt\n+x\n*** Update File: b.txt\n*** Delete File: c.txt\n*** End Patch",
      },
      {
        kind: "file",
        changes: [
          { path: "a.txt", kind: "add" },
          { path: "b.txt", kind: "update" },
          { path: "c.txt", kind: "delete" },
        ],
      },
    ],
    [
      "Write",
      { file_path: "/w/a.txt", content: "x" },
      { kind: "file", changes: [{ path: "/w/a.txt", kind: "add" }] },
    ],
    ["replace", { file_path: "/w/a.txt" }, { kind: "file", changes: [{ path: "/w/a.txt", kind: "update" }] }],
    ["mcp__srv__do_it", {}, { kind: "mcp", server: "srv", tool: "do_it" }],
    ["mcp_srv_do_it", {}, { kind: "mcp", server: "srv", tool: "do_it" }],
    ["WebSearch", { query: "bun" }, { kind: "web", query: "bun" }],
    ["StructuredOutput", {}, { kind: "structured" }],
    ["mcp_umbel_structured_StructuredOutput", {}, { kind: "structured" }],
    ["Read", { file_path: "/w/a" }, { kind: "other" }],
    // codex's TUI writes a file through its shell; codex exec reports that as a file change.
    [
      "exec_command",
      { cmd: "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: f.txt\n+hello\n*** End Patch\nEOF\n" },
      { kind: "file", changes: [{ path: "f.txt", kind: "add" }] },
    ],
    [
      "shell_command",
      { command: "apply_patch<<'EOF'\n*** Begin Patch\n*** Delete File: g.txt\n*** End Patch\nEOF\n" },
      { kind: "file", changes: [{ path: "g.txt", kind: "delete" }] },
    ],
    ["exec_command", { cmd: "apply_patches now" }, { kind: "command", command: "apply_patches now" }],
  ] as const)("%s is %j", (name, input, kind) => {
    expect(toolKind(name, input)).toEqual(kind);
  });

  test.each([
    [
      "Chunk ID: x\nWall time: 0\nProcess exited with code 3\nOutput:\nboom\n",
      false,
      { output: "boom\n", exitCode: 3 },
    ],
    ["<untrusted_context>\nOutput: hi\nProcess Group PGID: 7", false, { output: "hi", exitCode: 0 }],
    ["Output: (empty)\nExit Code: 2\nProcess Group PGID: 7", true, { output: "", exitCode: 2 }],
    ["Exit code 1\nno such file", true, { output: "no such file", exitCode: 1 }],
    ["plain", true, { output: "plain", exitCode: 1 }],
  ] as const)("a shell result %j → %j", (text, isError, result) => {
    expect(commandResult(text, isError)).toEqual(result);
  });
});
