// The wait machine at a usage limit (docs/limits.md), beside wait-machine.test.ts and on the same
// scripted world: limited from the provider's own records, --on-limit continue through a reset
// (claude by itself, codex/gemini by umbel's continuation prompt), and the turn budgets.
import { describe, expect, test } from "bun:test";
import { CONTINUATION_PROMPT } from "../../../src/core/limits/limits.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";
import type { Provider, TurnSignal } from "../../../src/core/providers/types.ts";
import type { WaitConfig } from "../../../src/core/wait/types.ts";
import { BUSY, IDLE } from "../../fixtures/claude-screens.ts";
import { runWait } from "../../helpers/machine-world.ts";

const claude = getProvider("claude");
const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });
const START = ev("SessionStart", { transcript_path: "/t.jsonl" });
const SUBMIT = ev("UserPromptSubmit", { prompt_id: "p1", prompt: "hi" });
const turn = (...later: (readonly [number, object])[]): (readonly [number, object])[] => [
  [0, START],
  [0, SUBMIT],
  ...later,
];
const config = (over: Partial<WaitConfig> = {}): WaitConfig => ({
  provider: claude,
  baseline: 1,
  startedAt: 0,
  deadline: 600_000,
  idleTimeoutMs: null,
  killed: false,
  ...over,
});

const LIMIT_TEXT = "You've hit your 5-hour limit · resets 12:04pm (UTC) · out of usage credits";
/** claude's transcript up to its limit line (reset at `resetS` unix seconds; the virtual clock is ms). */
const limitTranscript = (resetS: number, type = "five_hour") =>
  [
    { type: "user", promptId: "p1", origin: { kind: "human" }, message: { role: "user", content: "hi" } },
    {
      type: "assistant",
      message: { id: "e1", model: "<synthetic>", content: [{ type: "text", text: LIMIT_TEXT }] },
      apiError: "usage_limit_reached",
      apiErrorParams: { rate_limit_info: { status: "rejected", resetsAt: resetS, rateLimitType: type } },
      error: "rate_limit",
      isApiErrorMessage: true,
    },
  ]
    .map((line) => `${JSON.stringify(line)}\n`)
    .join("");
const LIMIT_HOOK = ev("StopFailure", { error: "rate_limit", last_assistant_message: LIMIT_TEXT });
const MENU = `${IDLE}\n❯ /rate-limit-options\n  What do you want to do?\n\n  ❯ 1. Stop and wait for limit to reset\n    2. Wait here, then continue automatically at 12:10pm\n\n  Enter to confirm · Esc to cancel\n`;
const iso = (s: number) => new Date(s * 1000).toISOString();
const CONTINUED =
  "Your claude.ai usage limit has reset. Continue the task you were working on when the limit was reached; do not repeat work that is already complete.";

describe("limited: from the provider's own records", () => {
  test("claude: StopFailure rate_limit + the transcript's usage_limit_reached → limited with window and resetsAt", () => {
    const run = runWait(config(), {
      events: turn([400, LIMIT_HOOK]),
      transcript: [[390, limitTranscript(3600)]],
      screens: [
        [0, BUSY],
        [450, IDLE],
      ],
    });
    expect(run.reason).toBe("limited");
    expect(run.evidence).toMatchObject({
      error: "rate_limit",
      message: LIMIT_TEXT,
      limit: { window: "five_hour", resetsAt: iso(3600), message: LIMIT_TEXT },
    });
    // claude may open /rate-limit-options ~1 s later: an idle screen is final after 3 s.
    expect(run.at).toBeGreaterThanOrEqual(3400);
    expect(run.at).toBeLessThan(5000);
  });

  test("the menu drawn over an idle composer a second after the hook (measured) is still closed", () => {
    const run = runWait(config(), {
      events: turn([400, LIMIT_HOOK]),
      transcript: [[390, limitTranscript(3600)]],
      screens: [
        [0, BUSY],
        [450, IDLE],
        [1400, MENU],
        [1700, IDLE],
      ],
    });
    expect(run.reason).toBe("limited");
    expect(run.keys).toEqual([["1"]]);
    expect(run.at).toBeLessThan(2500);
  });

  test("claude's /rate-limit-options menu (it will not continue by itself) is closed with its Stop option", () => {
    const run = runWait(config(), {
      events: turn([400, LIMIT_HOOK]),
      transcript: [[390, limitTranscript(3600)]],
      screens: [
        [0, BUSY],
        [420, MENU],
      ],
    });
    expect(run.reason).toBe("limited");
    expect(run.keys).toEqual([["1"]]);
  });

  test("the transcript line landing after the hook is waited for (up to 3 s)", () => {
    const run = runWait(config(), {
      events: turn([400, LIMIT_HOOK]),
      transcript: [[1200, limitTranscript(3600)]],
      screens: [
        [0, BUSY],
        [450, IDLE],
      ],
    });
    expect(run.reason).toBe("limited");
    expect(run.at).toBeGreaterThanOrEqual(1200);
  });

  test.each([
    ["a passing 429 claude gives up on", "API Error: Request rejected (429) · rate limited"],
    ["a limit's words with no usage_limit_reached line (an API-key session)", LIMIT_TEXT],
  ])("never from the hook alone: %s → provider-error", (_name, message) => {
    const run = runWait(config(), {
      events: turn([400, ev("StopFailure", { error: "rate_limit", last_assistant_message: message })]),
      screens: [
        [0, BUSY],
        [450, IDLE],
      ],
    });
    expect(run.reason).toBe("provider-error");
    expect(run.evidence).not.toHaveProperty("limit");
  });

  test("codex: task_complete usage_limit_exceeded (no hook fires) with its primary window", () => {
    const codex = getProvider("codex");
    const rollout = [
      { type: "event_msg", payload: { type: "task_started", turn_id: "t1" } },
      {
        type: "event_msg",
        payload: {
          type: "token_count",
          info: null,
          rate_limits: {
            primary: { used_percent: 100, window_minutes: 300, resets_at: 7200 },
            secondary: { used_percent: 41, window_minutes: 10080, resets_at: 90000 },
          },
        },
      },
      {
        type: "event_msg",
        payload: {
          type: "task_complete",
          turn_id: "t1",
          error: {
            message: "You’ve hit your usage limit. Try again later.",
            codex_error_info: "usage_limit_exceeded",
          },
        },
      },
    ]
      .map((l) => `${JSON.stringify(l)}\n`)
      .join("");
    const run = runWait(config({ provider: codex }), {
      events: [
        [0, ev("SessionStart", { transcript_path: "/r.jsonl" })],
        [0, ev("UserPromptSubmit", { turn_id: "t1", prompt: "hi" })],
      ],
      transcript: [[300, rollout]],
      screens: [[0, "› Ask Codex to do anything\n\n  stub-model default · /w\n"]],
    });
    expect(run.reason).toBe("limited");
    expect(run.evidence.limit).toEqual({
      window: "primary",
      resetsAt: iso(7200),
      message: "You’ve hit your usage limit. Try again later.",
    });
  });
});

describe("--on-limit continue", () => {
  test("claude continues by itself ~60 s after the reset: the wait goes on to the continued turn's stop", () => {
    const run = runWait(config({ onLimit: "continue" }), {
      events: turn(
        [400, LIMIT_HOOK],
        [
          70_000,
          ev("Notification", { notification_type: "quota_auto_resume_fired", message: "Usage limit reset" }),
        ],
        [70_010, ev("UserPromptSubmit", { prompt_id: "p2", prompt: CONTINUED })],
        [71_000, ev("Stop", { prompt_id: "p2", last_assistant_message: "done after the reset" })],
      ),
      transcript: [[390, limitTranscript(10)]],
      screens: [
        [0, BUSY],
        [450, IDLE],
        [70_010, BUSY],
        [71_000, IDLE],
      ],
    });
    expect(run.reason).toBe("stop");
    expect(run.at).toBeGreaterThanOrEqual(71_000);
    expect(run.evidence).toMatchObject({
      message: "done after the reset",
      continued: 1,
      limit: { window: "five_hour" },
    });
  });

  test("the deadline while waiting through a reset: timeout, naming the limit", () => {
    const run = runWait(config({ onLimit: "continue", deadline: 20_000 }), {
      events: turn([400, LIMIT_HOOK]),
      transcript: [[390, limitTranscript(10)]],
      screens: [
        [0, BUSY],
        [450, IDLE],
      ],
    });
    expect(run.reason).toBe("timeout");
    expect(run.evidence).toMatchObject({ limit: { window: "five_hour" }, timeoutMs: 20_000 });
  });

  test.each<[string, number, object[], string]>([
    ["a reset after the wait's deadline", 7200, [], "after this wait's deadline"],
    ["a reset more than 24 h ahead (claude shows its menu instead)", 90_000, [], "24 h"],
    [
      "claude gave up after repeated limits (quota_auto_resume_disabled)",
      10,
      [
        [70_000, ev("UserPromptSubmit", { prompt_id: "p2", prompt: CONTINUED })],
        [70_050, ev("Notification", { notification_type: "quota_auto_resume_disabled" })],
        [70_100, ev("StopFailure", { error: "rate_limit", last_assistant_message: LIMIT_TEXT })],
      ],
      "stopped continuing",
    ],
  ])("limited stands: %s", (_name, resetS, later, detail) => {
    const deadline = resetS === 90_000 ? 200_000_000 : 600_000;
    const run = runWait(config({ onLimit: "continue", deadline }), {
      events: turn([400, LIMIT_HOOK], ...(later as [number, object][])),
      transcript: [[390, limitTranscript(resetS)]],
      screens: [
        [0, BUSY],
        [450, IDLE],
      ],
    });
    expect(run.reason).toBe("limited");
    expect(String(run.evidence.detail)).toContain(detail);
  });

  /** codex and gemini never continue: umbel sends its continuation prompt at the reset time. */
  const resending: Provider = {
    ...claude,
    limits: {
      continues: "resend",
      read: (text, promptId) =>
        text.includes(`LIMIT ${promptId}`) ? { window: "daily", resetsAt: iso(30), message: "quota" } : null,
    },
    transcriptTurnEnd: (text, promptId): TurnSignal | null =>
      text.includes(`LIMIT ${promptId}`)
        ? { kind: "failure", promptId, error: "api_error", message: "quota" }
        : null,
  };

  test("codex/gemini: umbel sends the continuation prompt once the reset has passed and follows that turn", () => {
    const run = runWait(config({ provider: resending, onLimit: "continue" }), {
      events: turn([400, ev("Stop", { last_assistant_message: null })]),
      transcript: [[380, "LIMIT p1"]],
      screens: [
        [0, BUSY],
        [450, IDLE],
      ],
      onSend: () => [
        [10, ev("UserPromptSubmit", { prompt_id: "p2", prompt: CONTINUATION_PROMPT })],
        [900, ev("Stop", { prompt_id: "p2", last_assistant_message: "continued" })],
      ],
    });
    expect(run.sent.map(([, prompt]) => prompt)).toEqual([CONTINUATION_PROMPT]);
    expect(run.sent[0]?.[0]).toBeGreaterThanOrEqual(30_000);
    expect(run.reason).toBe("stop");
    expect(run.baseline).toBe(3);
    expect(run.evidence).toMatchObject({ message: "continued", continued: 1, limit: { window: "daily" } });
  });

  test("a continued turn that hits the limit again is continued again, at most 3 times", () => {
    const run = runWait(config({ provider: resending, onLimit: "continue" }), {
      events: turn([400, ev("Stop", { last_assistant_message: null })]),
      transcript: [[380, "LIMIT p1 LIMIT p2"]],
      screens: [
        [0, BUSY],
        [450, IDLE],
      ],
      onSend: (_prompt, at) => [
        [10, ev("UserPromptSubmit", { prompt_id: "p2", prompt: CONTINUATION_PROMPT })],
        [200, ev("Stop", { prompt_id: "p2", last_assistant_message: null, at })],
      ],
    });
    expect(run.sent.length).toBe(3);
    expect(run.reason).toBe("limited");
    expect(run.evidence).toMatchObject({ continued: 3 });
    expect(String(run.evidence.detail)).toContain("3 continuation prompts");
  });

  test("a continuation prompt that is not taken: limited, saying why", () => {
    const run = runWait(config({ provider: resending, onLimit: "continue" }), {
      events: turn([400, ev("Stop", { last_assistant_message: null })]),
      transcript: [[380, "LIMIT p1"]],
      screens: [
        [0, BUSY],
        [450, IDLE],
      ],
      onSend: () => null,
    });
    expect(run.reason).toBe("limited");
    expect(String(run.evidence.detail)).toContain("not taken");
  });

  test("no reset time: limited stands at once", () => {
    const noReset: Provider = {
      ...resending,
      limits: { continues: "resend", read: () => ({ window: "daily", resetsAt: null, message: "quota" }) },
    };
    const run = runWait(config({ provider: noReset, onLimit: "continue" }), {
      events: turn([400, ev("Stop", { last_assistant_message: null })]),
      transcript: [[380, "LIMIT p1"]],
      screens: [
        [0, BUSY],
        [450, IDLE],
      ],
    });
    expect(run.reason).toBe("limited");
    expect(run.at).toBeLessThan(5000);
    expect(run.sent).toEqual([]);
  });
});

describe("budgets", () => {
  const usageLine = (id: string, input: number) =>
    `${JSON.stringify({ type: "assistant", message: { id, model: "m", content: [{ type: "text", text: "x" }], usage: { input_tokens: input, output_tokens: 10 } } })}\n`;
  const human = `${JSON.stringify({ type: "user", promptId: "p1", origin: { kind: "human" }, message: { role: "user", content: "hi" } })}\n`;

  test("--max-tokens: once the turn's tokens pass it, the interrupt keys, then limited with the budget", () => {
    const run = runWait(config({ budget: { maxTokens: 1500 } }), {
      events: turn(),
      transcript: [
        [100, human + usageLine("m1", 1000)],
        [2000, human + usageLine("m1", 1000) + usageLine("m2", 1000)],
      ],
      screens: [
        [0, BUSY],
        [2300, IDLE],
      ],
    });
    expect(run.keys).toEqual([["Escape"]]);
    expect(run.reason).toBe("limited");
    expect(run.evidence).toMatchObject({
      limit: { window: "max-tokens", resetsAt: null },
      budget: { unit: "tokens", limit: 1500, used: 2020 },
    });
    expect(run.at).toBeGreaterThanOrEqual(2300);
  });

  test("--max-tokens: an idle frame while the interrupt is still landing is not the end; the screen must stay idle", () => {
    const run = runWait(config({ budget: { maxTokens: 1500 } }), {
      events: turn(),
      transcript: [
        [100, human + usageLine("m1", 1000)],
        [2000, human + usageLine("m1", 1000) + usageLine("m2", 1000)],
      ],
      screens: [
        [0, BUSY],
        [2100, IDLE],
        [2200, BUSY],
        [3000, IDLE],
      ],
    });
    expect(run.reason).toBe("limited");
    // Not at the lone idle frame (2100): once idle from 3000 on, confirmed.
    expect(run.at).toBeGreaterThanOrEqual(3000);
  });

  test("a cost budget: the statusline's cost since the base reaches it", () => {
    const sl = (cost: number) => JSON.stringify({ cost: { total_cost_usd: cost } });
    const run = runWait(config({ budget: { maxCostUsd: 0.5, costBaseUsd: 1 } }), {
      events: turn(),
      statusLine: [
        [0, sl(1)],
        [1500, sl(1.25)],
        [3000, sl(1.5)],
      ],
      screens: [
        [0, BUSY],
        [3200, IDLE],
      ],
    });
    expect(run.reason).toBe("limited");
    expect(run.evidence).toMatchObject({
      budget: { unit: "usd", limit: 0.5, used: 0.5 },
      limit: { window: "max-budget-usd" },
    });
  });
});
