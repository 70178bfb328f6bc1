// The REAL Claude Code 2.1.332 at a subscription usage limit, through dist/umbel against the stub
// model (docs/limits.md), as a claude.ai subscriber offline (providers/claude.ts): the shared limit
// scenario (scenarios/limits.ts), then what only claude has: its statusline telemetry, the turn's own
// usage in wait --json, -p json against claude -p, and --on-limit continue.
import { expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { eventually, UMBEL } from "../helpers/sandbox.ts";
import { bash, text } from "../stub-model/replies.ts";
import { claudeLimitProfile, SUBSCRIBER_FLAGS } from "./providers/claude.ts";
import { requireRealClaude } from "./real-bin.ts";
import { drive, json, timing } from "./scenarios/drive.ts";
import { limitScenarios } from "./scenarios/limits.ts";

// claude continues a limited turn ~60 s (30-90 s) after the reset: that test alone took 61-122 s
// here (a loaded machine stretches it).
setDefaultTimeout(360_000);

const claude = requireRealClaude("test/real/claude-limits.test.ts");

limitScenarios(claudeLimitProfile(claude), {
  after({ world, ok }) {
    const turn = async (name: string, prompt: string, timeout = "60s") => {
      const t = await drive(world, timeout).turn(name, prompt);
      return { outcome: t.outcome, code: t.code, ms: t.sendMs + t.waitMs };
    };
    const mains = (prompt: string) =>
      world()
        .stub.mainRequests()
        .filter((r) => r.main?.prompt.startsWith(prompt));

    test("claude's statusline telemetry in status --json: cost, context, model, the subscription's windows", async () => {
      const { sb } = world();
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
      const { sb, stub } = world();
      // Measured before: the first status --json after wait had cost 0 and no windows; 0.4 s later the turn's.
      await ok(["spawn", "su", ...SUBSCRIBER_FLAGS, "--start-timeout", "60s"]);
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
      const { sb } = world();
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
        ...SUBSCRIBER_FLAGS,
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
      await ok(["spawn", "rc", "--on-limit", "continue", ...SUBSCRIBER_FLAGS, "--start-timeout", "60s"]);
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
  },
});
