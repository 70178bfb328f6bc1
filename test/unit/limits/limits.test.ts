// What each provider reads as a usage limit, from the records shared notes limits.md quotes
// (claude 2.1.332, codex 0.171.0, gemini 0.61.0), and the claude screens and hooks around one.
import { describe, expect, test } from "bun:test";
import { billingEnvOf, billingFromEnv } from "../../../src/core/limits/billing.ts";
import { refuseClaudeSwitches } from "../../../src/core/providers/claude/billing.ts";
import { claudeLimits, readClaudeLimit } from "../../../src/core/providers/claude/limits.ts";
import { claude } from "../../../src/core/providers/claude/provider.ts";
import { readCodexLimit } from "../../../src/core/providers/codex/limits.ts";
import { codex } from "../../../src/core/providers/codex/provider.ts";
import { readGeminiLimit } from "../../../src/core/providers/gemini/limits.ts";
import { gemini } from "../../../src/core/providers/gemini/provider.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";

const jsonl = (...lines: object[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join("");
const iso = (s: number) => new Date(s * 1000).toISOString();

describe("claude: the transcript's usage_limit_reached line", () => {
  const human = {
    type: "user",
    promptId: "p1",
    origin: { kind: "human" },
    message: { role: "user", content: "hi" },
  };
  // Verbatim shape from limits.md §1.4 (trimmed).
  const limitLine = {
    type: "assistant",
    message: {
      id: "e84f77ee",
      model: "<synthetic>",
      role: "assistant",
      stop_reason: "stop_sequence",
      type: "message",
      content: [
        { type: "text", text: "You've hit your 5-hour limit · resets 12:04pm (UTC) · out of usage credits" },
      ],
    },
    apiError: "usage_limit_reached",
    apiErrorParams: {
      rate_limit_info: {
        status: "rejected",
        resetsAt: 1796126678,
        rateLimitType: "five_hour",
        overageStatus: "rejected",
      },
    },
    error: "rate_limit",
    isApiErrorMessage: true,
    apiErrorStatus: 429,
  };

  test("window, resetsAt (ISO) and the message", () => {
    expect(readClaudeLimit(jsonl(human, limitLine), "p1")).toEqual({
      window: "five_hour",
      resetsAt: iso(1796126678),
      message: "You've hit your 5-hour limit · resets 12:04pm (UTC) · out of usage credits",
    });
  });

  test("a plain 429 (apiError null) and a later error of another kind are not limits", () => {
    const plain = { ...limitLine, apiError: null, apiErrorParams: undefined };
    expect(readClaudeLimit(jsonl(human, plain), "p1")).toBeNull();
    const server = { ...limitLine, apiError: undefined, error: "server_error" };
    expect(readClaudeLimit(jsonl(human, limitLine, server), "p1")).toBeNull();
  });

  test("only the turn of the prompt: an earlier turn's limit is not this one's", () => {
    const next = { ...human, promptId: "p2" };
    expect(readClaudeLimit(jsonl(human, limitLine, next), "p2")).toBeNull();
    expect(readClaudeLimit(jsonl(human, limitLine, next), "p1")).not.toBeNull();
  });

  test("the auto-continuation (isMeta, auto-continuation origin) stays in the limited turn", () => {
    const cont = {
      type: "user",
      isMeta: true,
      origin: { kind: "auto-continuation" },
      promptSource: "system",
      message: { role: "user", content: "Your claude.ai usage limit has reset. Continue …" },
    };
    expect(readClaudeLimit(jsonl(human, limitLine, cont, limitLine), "p1")?.window).toBe("five_hour");
  });

  test("mayBe: StopFailure rate_limit with the limit's own words; a plain 429's are not", () => {
    const mayBe = claudeLimits.mayBe ?? (() => false);
    expect(mayBe({ error: "rate_limit", message: "You've hit your weekly limit · resets Dec 3" })).toBe(true);
    expect(mayBe({ error: "rate_limit", message: "API Error: Request rejected (429) · rate limited" })).toBe(
      false,
    );
    expect(mayBe({ error: "server_error", message: "You've hit your" })).toBe(false);
  });

  test("claude's continuation prompt is not a human turn; its give-up notification ends the waiting", () => {
    const submit = (prompt: string) => ({
      index: 3,
      name: "UserPromptSubmit",
      payload: { hook_event_name: "UserPromptSubmit", prompt, prompt_id: "x" },
    });
    const cont =
      "Your claude.ai usage limit has reset. Continue the task you were working on when the limit was reached; do not repeat work that is already complete.";
    expect(claude.interpretEvent(submit(cont))).toMatchObject({ kind: "submitted", human: false });
    expect(claude.interpretEvent(submit("please continue the task"))).toMatchObject({ human: true });
    const disabled = {
      index: 4,
      name: "Notification",
      payload: { hook_event_name: "Notification", notification_type: "quota_auto_resume_disabled" },
    };
    expect(claudeLimits.gaveUp?.(disabled)).toBe(true);
  });

  test("the /rate-limit-options menu is an error box whose keys choose 'Stop and wait'", () => {
    const menu = `${IDLE}❯ /rate-limit-options\n  What do you want to do?\n\n  ❯ 1. Stop and wait for limit to reset\n    2. Wait here, then continue automatically at 12:10pm\n    3. Upgrade your plan\n\n  Enter to confirm · Esc to cancel\n`;
    expect(claude.classifyScreen(menu)).toMatchObject({ kind: "error", keys: ["1"] });
  });
});

describe("codex: task_complete usage_limit_exceeded and the rate-limit snapshot", () => {
  const started = { type: "event_msg", payload: { type: "task_started", turn_id: "t1" } };
  const failed = (info: unknown) => ({
    type: "event_msg",
    payload: {
      type: "task_complete",
      turn_id: "t1",
      last_agent_message: null,
      error: { message: "You’ve hit your usage limit. … try again at 1:07 PM.", codex_error_info: info },
    },
  });
  // limits.md §2.3.
  const snapshot = {
    type: "event_msg",
    payload: {
      type: "token_count",
      info: null,
      rate_limits: {
        limit_id: "codex",
        primary: { used_percent: 100.0, window_minutes: 300, resets_at: 1796130470 },
        secondary: { used_percent: 41.0, window_minutes: 10080, resets_at: 1796389670 },
      },
    },
  };

  test("with the snapshot: the exhausted window and its reset", () => {
    expect(readCodexLimit(jsonl(started, snapshot, failed("usage_limit_exceeded")), "t1")).toEqual({
      window: "primary",
      resetsAt: iso(1796130470),
      message: "You’ve hit your usage limit. … try again at 1:07 PM.",
    });
  });

  test("without x-codex headers: a limit with no window or reset; another error is none", () => {
    expect(readCodexLimit(jsonl(started, failed("usage_limit_exceeded")), "t1")).toMatchObject({
      window: null,
      resetsAt: null,
    });
    const other = failed({ response_too_many_failed_attempts: { http_status_code: 429 } });
    expect(readCodexLimit(jsonl(started, other), "t1")).toBeNull();
  });
});

describe("the boxes a CLI opens at a limit (closed by wait, or by send once the turn is over)", () => {
  test("codex's 'Approaching rate limits' popup: the digit of 'Keep current model' (never a model switch)", () => {
    // Captured through umbel from codex 0.171.0 (test/real/codex-limits.test.ts).
    const popup = [
      "› use the quota",
      "■ You’ve hit your usage limit. Visit https://chatgpt.com/settings/usage to purchase more credits or try again at 3:55 PM.",
      "  Approaching rate limits",
      "  Switch to gpt-6-luna for lower credit usage?",
      "› 1. Switch to gpt-6-luna                   Fast and affordable model for easier tasks.",
      "  2. Keep current model",
      "  3. Keep current model (never show again)  Hide future rate limit reminders about switching models",
      "  enter select · esc back",
    ].join("\n");
    expect(codex.classifyScreen(popup)).toMatchObject({ kind: "error", keys: ["2"] });
  });

  test("gemini's Google sign-in quota box (Switch / Upgrade / Stop): Stop", () => {
    const box = [
      "╭──────────────────────────────────────────────────╮",
      "│ Usage limit reached for all Pro models.          │",
      "│ Access resets at 1:18 PM UTC.                    │",
      "│ /auth to switch to API key.                      │",
      "│ ● 1. Switch to gemini-3.5-flash                  │",
      "│   2. Upgrade for higher limits                   │",
      "│   3. Stop                                        │",
      "╰──────────────────────────────────────────────────╯",
    ].join("\n");
    expect(gemini.classifyScreen(box)).toMatchObject({ kind: "error", keys: ["3"] });
  });
});

describe("gemini: the chat file's quota error line", () => {
  const user = {
    id: "u1",
    timestamp: "2026-12-01T12:13:50.000Z",
    type: "user",
    content: [{ text: "daily" }],
  };
  const error = (content: string) => ({
    id: "e1",
    timestamp: "2026-12-01T12:13:56.000Z",
    type: "error",
    content,
  });

  test.each([
    [
      "a daily quota (no reset time)",
      "[API Error: You have exhausted your daily quota on this model.]\nPlease wait and try again later.",
      { window: "daily", resetsAt: null },
    ],
    [
      "a RetryInfo over 300 s",
      "[API Error: You exceeded your current quota. Please retry in 3600s.\nSuggested retry after 3600s.]",
      { window: null, resetsAt: "2026-12-01T13:13:56.000Z" },
    ],
    [
      "Code Assist",
      "[API Error: Quota exceeded for this model. Your quota will reset after 1h0m0s.\n💡 Tip: …]",
      { window: null, resetsAt: "2026-12-01T13:13:56.000Z" },
    ],
  ])("%s", (_name, text, want) => {
    expect(readGeminiLimit(jsonl(user, error(text)), null)).toMatchObject({ ...want, message: text });
  });

  test("another API error is not a limit", () => {
    expect(readGeminiLimit(jsonl(user, error("[API Error: Model not found]")), null)).toBeNull();
  });
});

describe("billing routes and refused switches", () => {
  test("the route from the names a worker was given", () => {
    expect(billingFromEnv(billingEnvOf(claude), ["HOME", "CLAUDE_CODE_OAUTH_TOKEN"])).toEqual({
      route: "subscription",
      via: [],
    });
    expect(billingFromEnv(billingEnvOf(claude), ["ANTHROPIC_API_KEY"])).toEqual({
      route: "api-key",
      via: ["ANTHROPIC_API_KEY"],
    });
    expect(billingFromEnv(billingEnvOf(claude), ["CLAUDE_CODE_USE_BEDROCK"]).route).toBe("cloud");
    expect(billingFromEnv(billingEnvOf(codex), ["OPENAI_API_KEY"]).route).toBe("api-key");
  });

  test.each([
    [{ settings: '{"disableAllHooks":true}' }, "turns every hook off"],
    [{ settings: '{"apiKeyHelper":"echo k"}' }, "bill the API"],
    [{ settings: '{"forceLoginMethod":"console"}' }, "Console"],
    [{ settings: '{"env":{"ANTHROPIC_API_KEY":"x"}}' }, "--env ANTHROPIC_API_KEY"],
    [{ envNames: ["CLAUDE_CODE_SIMPLE"] }, "--bare"],
  ])("claude refuses %j with the reason", (options, reason) => {
    expect(refuseClaudeSwitches(options)).toContain(reason);
  });

  test("ordinary settings pass", () => {
    expect(
      refuseClaudeSwitches({ settings: '{"env":{"FOO":"1"},"model":"x"}', envNames: ["FOO"] }),
    ).toBeNull();
  });
});
