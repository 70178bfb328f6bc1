// The REAL Claude Code 2.1.332 at a subscription usage limit, through dist/umbel against the stub
// model (docs/limits.md). A claude.ai subscriber session offline (shared notes, limits.md §1.1):
// CLAUDE_CODE_OAUTH_TOKEN with a mock token, no API key; only then does claude treat the unified
// rate-limit headers as a usage limit, fill the statusline's rate_limits, and continue by itself.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { bash, text } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { seedClaudeHome } from "./claude-home.ts";
import { requireRealClaude } from "./real-bin.ts";

// claude continues a limited turn ~60 s (30-90 s) after the reset: that test alone took 61-122 s
// here (a loaded machine stretches it).
setDefaultTimeout(360_000);

const claude = requireRealClaude("test/real/claude-limits.test.ts");
type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (s: string) => JSON.parse(s) as Json;
const timing = (what: string, ms: number) => console.log(`[timing] ${what}: ${Math.round(ms)} ms`);

/** A subscriber's claude (limits.md §1.1): these reach a worker only by name (--env). */
const SUBSCRIBER = {
  CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-mock-token-0123456789",
  CLAUDE_CODE_SUBSCRIPTION_TYPE: "max",
  CLAUDE_CODE_RATE_LIMIT_TIER: "default_claude_max_20x",
  CLAUDE_CODE_MAX_RETRIES: "0",
};
const SUB_FLAGS = Object.keys(SUBSCRIBER).flatMap((name) => ["--env", name]);
/** The usage-window headers a subscriber's answers carry (statusline rate_limits). */
const WINDOWS = {
  "anthropic-ratelimit-unified-status": "allowed",
  "anthropic-ratelimit-unified-reset": "{now+3600}",
  "anthropic-ratelimit-unified-representative-claim": "five_hour",
  "anthropic-ratelimit-unified-5h-utilization": "0.93",
  "anthropic-ratelimit-unified-5h-reset": "{now+3600}",
  "anthropic-ratelimit-unified-7d-utilization": "0.42",
  "anthropic-ratelimit-unified-7d-reset": "{now+200000}",
};

describe.skipIf(claude === null)("real claude at a usage limit, through dist/umbel", () => {
  let stub: StubModel;
  let sb: Sandbox;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "anthropic" });
    stub.setHeaders(WINDOWS);
    sb = await createSandbox({ untrusted: true });
    const home = seedClaudeHome(join(sb.dir, "claude"), {
      apiKey: "sk-ant-unused-0123456789abcdef",
      trustedDirs: [sb.work],
    });
    Object.assign(sb.env, {
      HOME: home.home,
      CLAUDE_CONFIG_DIR: home.configDir,
      TMPDIR: home.tmpDir,
      DISABLE_AUTOUPDATER: "1",
      ANTHROPIC_BASE_URL: stub.url,
      UMBEL_CLAUDE_BIN: claude ?? "claude",
      ...SUBSCRIBER,
    });
  });
  afterAll(async () => {
    await sb?.dispose();
    await stub?.stop();
  });

  async function ok(args: string[]): Promise<Json> {
    const r = await sb.umbel([...args, "--json"]);
    if (r.code !== 0) throw new Error(`umbel ${args.join(" ")} → ${r.code}\n${r.stdout}${r.stderr}`);
    return json(r.stdout);
  }
  async function turn(name: string, prompt: string, timeout = "60s") {
    const started = performance.now();
    const sent = await ok(["send", name, prompt]);
    const waited = await sb.umbel([
      "wait",
      name,
      "--after",
      String(sent.baseline),
      "--json",
      "--timeout",
      timeout,
    ]);
    return { outcome: json(waited.stdout), code: waited.code, ms: performance.now() - started };
  }
  const mains = (prompt: string) => stub.mainRequests().filter((r) => r.main?.prompt.startsWith(prompt));

  test("a limit → limited (120) in seconds, one request (no retry storm), with window and resetsAt; the worker stays usable", async () => {
    await ok(["spawn", "rl", ...SUB_FLAGS, "--start-timeout", "60s"]);
    const { outcome, code, ms } = await turn("rl", "limit one stub:limit 3600 five_hour 1");
    timing("send → limited", ms);
    expect(outcome.reason).toBe("limited");
    const limit = outcome.evidence.limit as { window: string; resetsAt: string; message: string };
    expect(limit.window).toBe("five_hour");
    expect(Math.abs(Date.parse(limit.resetsAt) - (Date.now() + 3600_000))).toBeLessThan(60_000);
    expect(limit.message).toStartWith("You've hit your 5-hour limit · resets ");
    expect(code).toBe(120);
    expect(ms).toBeLessThan(15_000);
    expect(mains("limit one").length).toBe(1);
    // The statusline claude writes after the limit (its prompt id is /rate-limit-options', a new one).
    expect(outcome.telemetry).toMatchObject({
      settled: true,
      windows: [{ name: "five_hour", usedPercent: 100 }, {}],
    });
    // claude opened /rate-limit-options (autoContinueAtUsageLimit false); wait closed it.
    const next = await turn("rl", "after the limit");
    expect(next.outcome.reason).toBe("stop");
  });

  test("claude's statusline telemetry in status --json: cost, context, model, the subscription's windows", async () => {
    // claude fires Stop 200-400 ms before the answer's line lands, and redraws its statusline after.
    const status = await eventually(
      async () => {
        const now = json((await sb.umbel(["status", "rl", "--json"])).stdout);
        const t = now.telemetry as { total: { input: number }; windows: { usedPercent: number }[] };
        return t.total.input > 0 && t.windows[0]?.usedPercent === 93 ? now : null;
      },
      10_000,
      "the answer's usage and the statusline's windows",
    );
    expect(status.billing).toEqual({ route: "subscription", via: [] });
    const t = status.telemetry as Record<string, unknown> & {
      windows: { name: string; usedPercent: number }[];
    };
    expect(t.model).toBe("claude-opus-5-5");
    expect(t.costUsd).toBeGreaterThan(0);
    // 2.1.332 sends used_percentage null when the last request (here the limit) had no usage.
    if (t.contextUsedPercent === null) expect(t.missing).toHaveProperty("contextUsedPercent");
    else expect(t.contextUsedPercent).toBeNumber();
    expect((t.total as { input: number }).input).toBeGreaterThan(0);
    expect(t.windows.map((w) => [w.name, w.usedPercent])).toEqual([
      ["five_hour", 93],
      ["seven_day", 42],
    ]);
    expect((await sb.umbel(["ls"])).stdout).toMatch(/WINDOWS[\s\S]*5h 93% ↻\d\d:\d\dZ 7d 42% ↻/);
  });

  test("wait --json hands back the turn's own usage (claude rewrites its statusline after Stop); status right after shows that same turn", async () => {
    // Measured before: the first status --json after wait had cost 0 and no windows; 0.4 s later the turn's.
    await ok(["spawn", "su", ...SUB_FLAGS, "--start-timeout", "60s"]);
    for (const [prompt, script] of [
      ["a first turn", () => stub.script(text("first"))],
      ["a tool turn", () => stub.script(bash("echo hi", text("after the tool")))],
    ] as const) {
      script();
      const { outcome, code } = await turn("su", prompt);
      expect(code).toBe(0);
      const t = outcome.telemetry as Record<string, unknown> & { costUsd: number; settled: boolean };
      expect(t.settled).toBe(true);
      expect(t.costUsd).toBeGreaterThan(0);
      expect(
        (t.windows as { name: string; usedPercent: number }[]).map((w) => [w.name, w.usedPercent]),
      ).toEqual([
        ["five_hour", 93],
        ["seven_day", 42],
      ]);
      const { settled: _, ...numbers } = t;
      expect(json((await sb.umbel(["status", "su", "--json"])).stdout).telemetry).toEqual(numbers);
    }
    await sb.umbel(["kill", "su", "--purge"]);
  });

  test("-p json on a limit has claude -p's result on the same stub (exit 1, api_error usage_limit_reached)", async () => {
    const dir = join(sb.dir, "pair");
    mkdirSync(dir, { recursive: true });
    const run = async (bin: string, args: string[]) => {
      const child = Bun.spawn([bin, "-p", ...args], {
        cwd: sb.work,
        env: sb.env,
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      return { result: json(stdout), code };
    };
    const c = await run(claude ?? "claude", [
      "claude pair stub:limit 3600 five_hour",
      "--output-format",
      "json",
    ]);
    const u = await run(UMBEL, [
      "umbel pair stub:limit 3600 five_hour",
      "--output-format",
      "json",
      ...SUB_FLAGS,
    ]);
    const { umbel, ...ours } = u.result;
    expect(Object.keys(ours).sort()).toEqual(Object.keys(c.result).sort());
    for (const key of [
      "type",
      "subtype",
      "is_error",
      "terminal_reason",
      "api_error",
      "api_error_status",
      "api_error_type",
      "total_cost_usd",
    ])
      expect({ key, value: ours[key] }).toEqual({ key, value: c.result[key] });
    expect(String(ours.result)).toStartWith("You've hit your 5-hour limit · resets ");
    expect(umbel).toMatchObject({ outcome: "limited", limit: { window: "five_hour" } });
    expect([u.code, c.code]).toEqual([1, 1]);
  });

  test("--on-limit continue with a reset seconds ahead: claude continues by itself and the wait ends in stop", async () => {
    await ok(["spawn", "rc", "--on-limit", "continue", ...SUB_FLAGS, "--start-timeout", "60s"]);
    const { outcome, code, ms } = await turn("rc", "limit two stub:limit 5 five_hour 1", "300s");
    timing("limit → claude's own continuation → stop", ms);
    expect(outcome).toMatchObject({
      reason: "stop",
      evidence: { continued: 1, limit: { window: "five_hour" } },
    });
    expect(code).toBe(0);
    // The failed request, then claude's continuation (its prompt merged into the same message).
    expect(mains("limit two").map((r) => r.answered)).toEqual(["limit", "message text"]);
  });
});
