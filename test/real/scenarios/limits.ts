// A usage limit on a real CLI, written once and run over providers (docs/limits.md): the turn that
// meets it ends limited (120) with the window and its reset, and the worker takes the next prompt.
// A profile (test/real/providers/<cli>.ts) says how the CLI meets its limit and where it says so;
// test/real/<cli>-limits.test.ts runs it and what only that CLI has.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { StubReply } from "../../stub-model/types.ts";
import { type Driver, drive, type Json, type RealWorld, timing } from "./drive.ts";

export type LimitProfile<W extends RealWorld = RealWorld> = {
  label: string;
  /** null: the real binary is missing and the tests are skipped (real-bin.ts). */
  bin: string | null;
  makeWorld(): Promise<W>;
  worker: string;
  spawnFlags: string[];
  /** Each wait's --timeout. */
  timeout: string;
  /** What the title says of how the limit is seen: "from the rollout (no hook fires)". */
  how: string;
  /** Scripted before the prompt; none when the prompt is itself a stub directive. */
  reply?: StubReply;
  prompt: string;
  window: string;
  /** Seconds from now the window resets (within a minute), or null: the CLI names no time. */
  resetsIn: number | null;
  /** The limit's own message begins so, or the outcome's message contains this. */
  message: { limitStartsWith: string } | { contains: string };
  /** The turn ends within this long. */
  withinMs?: number;
  /** What only this CLI shows at the limit (its logs, status, screen). */
  checkLimited?(w: W, outcome: Json): Promise<void>;
};

export type LimitContext<W extends RealWorld> = { world(): W } & Driver;

export function limitScenarios<W extends RealWorld>(
  p: LimitProfile<W>,
  extra: { after?(ctx: LimitContext<W>): void } = {},
): void {
  describe.skipIf(p.bin === null)(`${p.label}: a usage limit through dist/umbel`, () => {
    let world: W;
    const ctx: LimitContext<W> = { world: () => world, ...drive(() => world, p.timeout) };
    beforeAll(async () => {
      world = await p.makeWorld();
    });
    afterAll(async () => {
      await world?.dispose();
    });

    const resets = p.resetsIn === null ? "no reset time" : "its reset";
    test(`a limit → limited (120) ${p.how}, window ${p.window} and ${resets}; the worker stays usable`, async () => {
      await ctx.ok(["spawn", p.worker, ...p.spawnFlags]);
      if (p.reply) world.stub.script(p.reply);
      const t = await ctx.turn(p.worker, p.prompt);
      const ms = t.sendMs + t.waitMs;
      timing("send → limited", ms);
      expect(t.outcome.reason).toBe("limited");
      const limit = t.outcome.evidence.limit as { window: string; resetsAt: string | null; message: string };
      expect(limit.window).toBe(p.window);
      if (p.resetsIn === null) expect(limit.resetsAt).toBeNull();
      else
        expect(Math.abs(Date.parse(String(limit.resetsAt)) - (Date.now() + p.resetsIn * 1000))).toBeLessThan(
          60_000,
        );
      if ("limitStartsWith" in p.message) expect(limit.message).toStartWith(p.message.limitStartsWith);
      else expect(String(t.outcome.evidence.message)).toContain(p.message.contains);
      expect(t.code).toBe(120);
      if (p.withinMs !== undefined) expect(ms).toBeLessThan(p.withinMs);
      await p.checkLimited?.(world, t.outcome);
      expect((await ctx.turn(p.worker, "after the limit")).outcome.reason).toBe("stop");
    });

    extra.after?.(ctx);
  });
}
