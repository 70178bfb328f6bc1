// Per-worker telemetry from each provider's own records (status --json): tokens, turns, context,
// model, cost (null with a reason where none is recorded) and subscription windows.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readClaudeTelemetry } from "../../../src/core/providers/claude/telemetry.ts";
import { readCodexTelemetry } from "../../../src/core/providers/codex/telemetry.ts";
import { readGeminiTelemetry } from "../../../src/core/providers/gemini/telemetry.ts";
import { renderWindows } from "../../../src/faces/verbs/render-usage.ts";

const jsonl = (...lines: object[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join("");
const fixture = (path: string) => readFileSync(join(import.meta.dir, "..", "..", "fixtures", path), "utf8");
const iso = (s: number) => new Date(s * 1000).toISOString();

describe("claude: transcript usage + statusline JSON", () => {
  const human = (id: string) => ({
    type: "user",
    promptId: id,
    origin: { kind: "human" },
    message: { content: id },
  });
  const reply = (id: string, usage: object) => ({
    type: "assistant",
    message: { id, model: "claude-opus-5-5", content: [{ type: "text", text: "x" }], usage },
  });
  // One API message split over two lines repeats its usage: counted once.
  const transcript = jsonl(
    human("p1"),
    reply("m1", {
      input_tokens: 100,
      output_tokens: 10,
      cache_read_input_tokens: 50,
      cache_creation_input_tokens: 5,
    }),
    reply("m1", {
      input_tokens: 100,
      output_tokens: 10,
      cache_read_input_tokens: 50,
      cache_creation_input_tokens: 5,
    }),
    human("p2"),
    reply("m2", { input_tokens: 200, output_tokens: 20 }),
  );
  // The statusline JSON of limits.md §1.5 (a subscriber: rate_limits present).
  const statusLine = JSON.stringify({
    model: { id: "claude-opus-5-5", display_name: "Opus 5.5" },
    cost: { total_cost_usd: 0.00028000000000000003, total_duration_ms: 6200 },
    context_window: {
      total_input_tokens: 10,
      total_output_tokens: 5,
      context_window_size: 1000000,
      used_percentage: 12.34,
    },
    rate_limits: {
      five_hour: { used_percentage: 93, resets_at: 1796130681 },
      seven_day: { used_percentage: 42, resets_at: 1796427081 },
    },
  });

  test("tokens per turn and in total, cost, context, model and windows", () => {
    expect(readClaudeTelemetry({ transcript, statusLine })).toEqual({
      model: "claude-opus-5-5",
      turns: 2,
      lastTurn: { input: 200, output: 20, cacheRead: 0, cacheWrite: 0, total: 220 },
      total: { input: 300, output: 30, cacheRead: 50, cacheWrite: 5, total: 385 },
      contextUsedPercent: 12.3,
      costUsd: 0.00028000000000000003,
      windows: [
        { name: "five_hour", usedPercent: 93, resetsAt: iso(1796130681), minutes: 300 },
        { name: "seven_day", usedPercent: 42, resetsAt: iso(1796427081), minutes: 10080 },
      ],
      missing: {},
    });
  });

  test("before the statusline reports (or an API-key session: no rate_limits): null with the reason", () => {
    const t = readClaudeTelemetry({ transcript, statusLine: null });
    expect(t).toMatchObject({ costUsd: null, contextUsedPercent: null, windows: [] });
    expect(t.missing.costUsd).toContain("statusline");
  });

  test("the real fixture: every API message once", () => {
    const t = readClaudeTelemetry({ transcript: fixture("claude-transcript.jsonl"), statusLine: null });
    expect(t.turns).toBeGreaterThan(0);
    expect(t.total.total).toBe(t.total.input + t.total.output + t.total.cacheRead + t.total.cacheWrite);
  });
});

describe("codex: token_usage_record / token_count", () => {
  test("the four-turn rollout: the thread's total, the last turn's, context, model; no cost", () => {
    const t = readCodexTelemetry({ transcript: fixture("codex/rollout-four-turns.jsonl"), statusLine: null });
    expect(t.total.total).toBe(19260);
    expect(t.turns).toBe(4);
    expect(t.model).toBe("stub-model");
    expect(t.costUsd).toBeNull();
    expect(t.missing.costUsd).toBe("codex records no cost");
    expect(t.contextUsedPercent).toBeGreaterThan(0);
  });

  test("the rate-limit windows when codex recorded them", () => {
    const t = readCodexTelemetry({
      transcript: jsonl({
        type: "event_msg",
        payload: {
          type: "token_count",
          info: null,
          rate_limits: {
            primary: { used_percent: 95, window_minutes: 300, resets_at: 1796130470 },
            secondary: null,
          },
        },
      }),
      statusLine: null,
    });
    expect(t.windows).toEqual([
      { name: "primary", usedPercent: 95, resetsAt: iso(1796130470), minutes: 300 },
    ]);
  });
});

describe("gemini: the chat file's tokens", () => {
  test("cached is part of input, thoughts part of output; no cost or context window", () => {
    const t = readGeminiTelemetry({
      transcript: jsonl(
        { sessionId: "s" },
        { id: "u1", type: "user", content: [{ text: "hi" }] },
        {
          id: "g1",
          type: "gemini",
          content: "hello",
          model: "gemini-2.5-pro",
          tokens: { input: 100, output: 10, cached: 40, thoughts: 5, tool: 0, total: 115 },
        },
      ),
      statusLine: null,
    });
    expect(t).toMatchObject({
      model: "gemini-2.5-pro",
      turns: 1,
      total: { input: 60, output: 15, cacheRead: 40, cacheWrite: 0, total: 115 },
      costUsd: null,
      contextUsedPercent: null,
    });
    expect(Object.keys(t.missing).sort()).toEqual(["contextUsedPercent", "costUsd"]);
  });
});

test("ls prints windows compactly", () => {
  expect(
    renderWindows([
      { name: "five_hour", usedPercent: 93, resetsAt: "2026-12-01T13:11:21.000Z", minutes: 300 },
      { name: "seven_day", usedPercent: 42, resetsAt: "2026-12-05T07:00:00.000Z", minutes: 10080 },
    ]),
  ).toBe("5h 93% ↻13:11Z 7d 42% ↻Dec 5");
});
