import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test (declared here: a preload's default reaches only the
// first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * dist/umbel on the fakes at a subscription usage limit (docs/limits.md): limited (120) with the
 * window and reset from the provider's records, --on-limit continue, telemetry and billing in
 * status, budgets, -p's claude -p shapes, and the billing switches refused.
 */

type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (text: string) => JSON.parse(text) as Json;

let sb: Sandbox;
beforeAll(async () => {
  // FAKE_* knobs reach a worker only with --env (the worker env is an allowlist); gemini signs in
  // with the inherited key (one of its names).
  sb = await createSandbox({
    env: {
      FAKE_CLAUDE_RESUME_MS: "300",
      CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-fake",
      GEMINI_API_KEY: "fake-key",
      // gemini -p's and codex exec's dialects on claude's worker unless a test names the provider.
      UMBEL_PROVIDER: "claude",
    },
  });
});
afterAll(async () => {
  await sb.dispose();
});

const inSeconds = (iso: unknown) => (Date.parse(String(iso)) - Date.now()) / 1000;

describe("claude: limited", () => {
  test("the limit's transcript line → limited (120) with window and resetsAt; the menu is closed, the worker usable", async () => {
    await spawnOk(sb, "cl", ["--env", "CLAUDE_CODE_OAUTH_TOKEN"]);
    const { outcome, code } = await sendAndWait(sb, "cl", "fake:limit 3600 five_hour", ["--timeout", "30s"]);
    expect(outcome.reason).toBe("limited");
    const limit = outcome.evidence.limit as Record<string, unknown>;
    expect(limit.window).toBe("five_hour");
    expect(inSeconds(limit.resetsAt)).toBeGreaterThan(3500);
    expect(inSeconds(limit.resetsAt)).toBeLessThan(3700);
    expect(String(limit.message)).toStartWith("You've hit your 5-hour limit · resets ");
    expect(code).toBe(120);
    const again = await sendAndWait(sb, "cl", "fake:reply still here");
    expect(again.outcome.reason).toBe("stop");
    expect((await sb.umbel(["read", "cl"])).stdout).toBe("still here\n");
  });

  test("status: billing route, on-limit, telemetry from the transcript and the statusline (windows for a subscriber); ls shows them", async () => {
    const status = json((await sb.umbel(["status", "cl", "--json"])).stdout);
    expect(status.billing).toEqual({ route: "subscription", via: [] });
    expect(status.onLimit).toBe("stop");
    const t = status.telemetry as Record<string, unknown>;
    expect(t.model).toBe("claude-opus-5-5");
    expect(t.turns).toBe(2);
    expect(t.total).toMatchObject({ input: 10, output: 5, total: 15 });
    expect(t.costUsd).toBeGreaterThan(0);
    expect((t.windows as { name: string }[]).map((w) => w.name)).toEqual(["five_hour", "seven_day"]);
    const ls = await sb.umbel(["ls"]);
    expect(ls.stdout).toMatch(
      /^NAME +STATE +PROVIDER +WINDOWS +CWD\ncl +idle +claude +5h \d+% ↻\d\d:\d\dZ 7d 42% ↻/,
    );
  });

  test("wait --json carries the turn's own telemetry (the statusline claude rewrites after Stop); status right after agrees", async () => {
    const before = json((await sb.umbel(["status", "cl", "--json"])).stdout).telemetry as { costUsd: number };
    const { outcome, code } = await sendAndWait(sb, "cl", "fake:reply counted");
    expect(code).toBe(0);
    const t = outcome.telemetry as Record<string, unknown> & { costUsd: number; settled: boolean };
    expect(t).toMatchObject({ settled: true, turns: 3, lastTurn: { input: 10, output: 5 } });
    expect(t.costUsd).toBeGreaterThan(before.costUsd);
    expect((t.windows as { name: string }[]).map((w) => w.name)).toEqual(["five_hour", "seven_day"]);
    const { settled: _, ...numbers } = t;
    expect(json((await sb.umbel(["status", "cl", "--json"])).stdout).telemetry).toEqual(numbers);
  });

  test("--on-limit continue: claude continues by itself after the reset; wait ends with that turn's stop", async () => {
    await spawnOk(sb, "cc", ["--on-limit", "continue", "--env", "FAKE_CLAUDE_RESUME_MS"]);
    const { outcome, code } = await sendAndWait(sb, "cc", "fake:limit 2 five_hour 1", ["--timeout", "30s"]);
    expect(outcome).toMatchObject({
      reason: "stop",
      evidence: { message: "FAKE-RESUMED after limit reset", continued: 1, limit: { window: "five_hour" } },
    });
    expect(outcome.elapsedMs).toBeGreaterThan(2000);
    expect(code).toBe(0);
  });

  test("--on-limit continue with a reset past the wait's timeout: limited at once, saying why", async () => {
    const { outcome, code } = await sendAndWait(sb, "cc", "fake:limit 3600", ["--timeout", "20s"]);
    expect(outcome.reason).toBe("limited");
    expect(String(outcome.evidence.detail)).toContain("after this wait's deadline");
    expect(outcome.elapsedMs).toBeLessThan(8000);
    expect(code).toBe(120);
  });

  test("wait --max-tokens: the turn is interrupted at its budget → limited with the budget; the worker usable", async () => {
    const { outcome, code } = await sendAndWait(sb, "cl", "fake:tools 8", ["--max-tokens", "2500"]);
    expect(outcome).toMatchObject({
      reason: "limited",
      evidence: { limit: { window: "max-tokens" }, budget: { unit: "tokens", limit: 2500 } },
    });
    expect((outcome.evidence.budget as { used: number }).used).toBeGreaterThan(2500);
    expect(code).toBe(120);
    expect((await sendAndWait(sb, "cl", "fake:reply after the budget")).outcome.reason).toBe("stop");
  });
});

describe("-p on a limit and with budgets", () => {
  test("json: claude -p's usage_limit_reached result (exit 1), umbel says limited with the reset", async () => {
    const r = await sb.umbel(["-p", "fake:limit 3600 seven_day", "--output-format", "json"]);
    const result = json(r.stdout);
    expect(result).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: true,
      terminal_reason: "api_error",
      api_error_status: 429,
      api_error: "usage_limit_reached",
      total_cost_usd: 0,
      umbel: { outcome: "limited", limit: { window: "seven_day" } },
    });
    expect(String(result.result)).toStartWith("You've hit your weekly limit · resets ");
    expect(r.code).toBe(1);
  });

  test("stream-json: rate_limit_event before the limit's assistant line", async () => {
    const r = await sb.umbel(["-p", "fake:limit 3600", "--output-format", "stream-json", "--verbose"]);
    const types = r.stdout
      .trim()
      .split("\n")
      .map((l) => (json(l).subtype === "init" ? "init" : String(json(l).type)));
    expect(types).toEqual(["init", "rate_limit_event", "assistant", "result"]);
    expect(r.code).toBe(1);
  });

  test("json: total_cost_usd and the one model's costUSD from the statusline", async () => {
    const r = await sb.umbel(["-p", "fake:reply costed", "--output-format", "json"]);
    const result = json(r.stdout);
    expect(result.total_cost_usd).toBeGreaterThan(0);
    const usage = result.modelUsage as Record<string, { costUSD: number }>;
    expect(usage["claude-opus-5-5"]?.costUSD).toBe(result.total_cost_usd as number);
    expect(r.code).toBe(0);
  });

  test("--max-budget-usd: error_max_budget_usd (exit 1); text mode prints claude's line", async () => {
    const r = await sb.umbel(["-p", "fake:tools 8", "--max-budget-usd", "0.01", "--output-format", "json"]);
    expect(json(r.stdout)).toMatchObject({
      subtype: "error_max_budget_usd",
      is_error: true,
      terminal_reason: "budget_exhausted",
      errors: ["Reached maximum budget ($0.01)"],
    });
    expect(r.code).toBe(1);
    const text = await sb.umbel(["-p", "fake:tools 8", "--max-budget-usd", "0.01"]);
    expect(text.stdout).toBe("Error: Exceeded USD budget (0.01)");
    expect(text.code).toBe(1);
  });

  test("the gemini and codex dialects: a limit is their error, umbel.outcome limited with the window; --max-tokens is theirs too", async () => {
    const g = await sb.umbel(["-p", "fake:limit 3600 seven_day", "--dialect", "gemini", "-o", "json"]);
    expect(g.code).toBe(429 % 256); // gemini -p exits with an API error's HTTP status modulo 256
    expect(json(g.stderr)).toMatchObject({
      error: { type: "Error" },
      umbel: { outcome: "limited", limit: { window: "seven_day" } },
    });
    const x = await sb.umbel(["exec", "--json", "fake:limit 3600"]);
    expect(x.code).toBe(1);
    const events = x.stdout.trim().split("\n").map(json);
    expect(events.at(-1)).toMatchObject({ type: "turn.failed", umbel: { outcome: "limited" } });
    const budget = await sb.umbel(["exec", "--max-tokens", "1", "fake:tools 8"]);
    expect(budget.stderr).toContain("Reached maximum tokens (1)");
    expect(budget.code).toBe(1);
  });

  test("a cost budget on a provider that records no cost is a usage error naming it", async () => {
    const r = await sb.umbel(["-p", "hi", "--provider", "codex", "--max-budget-usd", "1"]);
    expect(r.stderr).toContain("Codex records none");
    expect(r.code).toBe(2);
  });
});

describe("codex and gemini", () => {
  test("codex: no hook fires at its limit; the rollout's usage_limit_exceeded decides → limited with the primary window", async () => {
    await spawnOk(sb, "cx", ["--provider", "codex"]);
    const { outcome, code } = await sendAndWait(sb, "cx", "fake:limit 600", ["--timeout", "20s"]);
    expect(outcome.reason).toBe("limited");
    expect(outcome.evidence.limit).toMatchObject({ window: "primary" });
    expect(inSeconds((outcome.evidence.limit as { resetsAt: string }).resetsAt)).toBeGreaterThan(500);
    expect(code).toBe(120);
    const status = json((await sb.umbel(["status", "cx", "--json"])).stdout);
    expect(status.telemetry).toMatchObject({ costUsd: null, missing: { costUsd: "codex records no cost" } });
    expect((status.telemetry as { windows: unknown[] }).windows.length).toBe(2);
  });

  test("codex --on-limit continue: umbel sends its continuation prompt at the reset and follows that turn", async () => {
    await spawnOk(sb, "cy", ["--provider", "codex", "--on-limit", "continue"]);
    const { outcome, baseline, code } = await sendAndWait(sb, "cy", "fake:limit 2", ["--timeout", "30s"]);
    expect(outcome).toMatchObject({
      reason: "stop",
      evidence: { continued: 1, limit: { window: "primary" } },
    });
    expect(outcome.baseline).toBeGreaterThan(baseline);
    expect(String(outcome.evidence.message)).toContain("head=Your usage limit has reset. Continue the");
    expect(code).toBe(0);
  });

  test("gemini: the quota box (no hook) → umbel chooses Stop → limited (daily); the worker stays usable", async () => {
    await spawnOk(sb, "gm", ["--provider", "gemini"]);
    const { outcome, code } = await sendAndWait(sb, "gm", "fake:quota", ["--timeout", "20s"]);
    expect(outcome).toMatchObject({
      reason: "limited",
      evidence: { limit: { window: "daily", resetsAt: null } },
    });
    expect(code).toBe(120);
    expect((await sendAndWait(sb, "gm", "fake:reply still here")).outcome.reason).toBe("stop");
  });
});

describe("billing: never a silent switch", () => {
  test("-p --bare is refused with the reason", async () => {
    const r = await sb.umbel(["-p", "hi", "--bare"]);
    expect(r.stderr).toContain("turns hooks off");
    expect(r.code).toBe(2);
  });

  test("spawn --settings apiKeyHelper is refused; an explicit key is reported as api-key billing", async () => {
    const refused = await sb.umbel(["spawn", "k1", "--settings", '{"apiKeyHelper":"echo k"}']);
    expect(refused.stderr).toContain("bill the API");
    expect(refused.code).toBe(2);
    await spawnOk(sb, "k2", ["--env", "ANTHROPIC_API_KEY=sk-ant-fake"]);
    const status = json((await sb.umbel(["status", "k2", "--json"])).stdout);
    expect(status.billing).toEqual({ route: "api-key", via: ["ANTHROPIC_API_KEY"] });
  });

  test("an inherited API key never reaches a worker: still the subscription", async () => {
    const r = await sb.umbel(["spawn", "k3", "--json"], { env: { ANTHROPIC_API_KEY: "sk-ant-inherited" } });
    expect(r.code).toBe(0);
    const status = json((await sb.umbel(["status", "k3", "--json"])).stdout);
    expect(status.billing).toEqual({ route: "subscription", via: [] });
  });
});
