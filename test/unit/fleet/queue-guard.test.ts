import { describe, expect, test } from "bun:test";
import { sendOrQueue } from "../../../src/operations/fleet/queue.ts";
import { waitForTurns } from "../../../src/operations/fleet/wait-many.ts";
import { statusOf } from "../../../src/operations/worker/status.ts";
import { guardWorld } from "../../helpers/guard-world.ts";

/** send --queue with guardrails, and the queue beside a guard loop, on in-memory ports. */

describe("a queued prompt with guardrails", () => {
  test("they go with it: recorded when the queue sends it, and the wait that follows enforces them", async () => {
    const world = guardWorld((_p, n) => ({ answer: `answer ${n}` }));
    world.onCheck = (_c, o) => (o.env.UMBEL_ATTEMPT === "1" ? { exitCode: 1, output: "not yet" } : {});
    const one = await sendOrQueue(world.deps, { name: "w1", prompt: "one" });
    const two = await sendOrQueue(world.deps, {
      name: "w1",
      prompt: "two",
      queue: true,
      accept: ["make check"],
      maxAttempts: 2,
    });
    expect(two).toMatchObject({ baseline: null, queued: { position: 0, state: "queued" } });
    // status never shows a queued prompt's text or guardrails.
    expect((await statusOf(world.deps, "w1")).queue).toEqual([
      { id: two.queued?.id ?? "", state: "queued", queuedAt: expect.any(String) },
    ]);
    expect(world.guards.get("w1")?.size ?? 0).toBe(0);

    const first = await waitForTurns(world.deps, { name: "w1", after: one.baseline ?? -1 });
    expect(first).toMatchObject({ reason: "stop", next: { id: two.queued?.id } });
    const baseline = first.next?.baseline ?? -1;
    expect(world.guards.get("w1")?.get(baseline)).toMatchObject({
      accept: ["make check"],
      maxAttempts: 2,
      phase: "turn",
    });

    const second = await waitForTurns(world.deps, { name: "w1", after: baseline });
    expect(second).toMatchObject({ reason: "stop", evidence: { message: "answer 3" } });
    expect(second.evidence.attempts?.map((a) => a.passed)).toEqual([false, true]);
    expect(world.prompts.slice(0, 2)).toEqual(["one", "two"]);
    expect(world.prompts[2]).toContain("not yet");
  });

  test("a usage error in them queues nothing", async () => {
    const world = guardWorld(() => ({}));
    await sendOrQueue(world.deps, { name: "w1", prompt: "one" });
    await expect(
      sendOrQueue(world.deps, { name: "w1", prompt: "two", queue: true, jsonSchema: { type: "object" } }),
    ).rejects.toMatchObject({ code: "usage", exitCode: 2 });
    expect((await statusOf(world.deps, "w1")).queue).toBeUndefined();
  });
});

describe("the queue beside a guard loop", () => {
  test("a worker idle between attempts is not sent its queued prompt until the guard has its outcome", async () => {
    const world = guardWorld((_p, n) => ({ answer: `answer ${n}` }));
    world.onCheck = (_c, o) => (o.env.UMBEL_ATTEMPT === "1" ? { exitCode: 1, output: "fix it" } : {});
    const sent = await sendOrQueue(world.deps, { name: "w1", prompt: "one", accept: ["make check"] });
    const queued = await sendOrQueue(world.deps, { name: "w1", prompt: "two", queue: true });
    expect(queued.baseline).toBeNull();

    // The first attempt's turn ends; no one has checked it yet.
    await world.clock.advance(1000);
    const idle = await statusOf(world.deps, "w1");
    expect(idle).toMatchObject({ state: "idle", guard: { attempt: 1, maxAttempts: 3, phase: "turn" } });
    expect(idle.queue?.map((e) => e.state)).toEqual(["queued"]);
    expect(world.prompts).toEqual(["one"]);

    // The wait runs the guard to its end (a feedback turn, then a pass), then sends the queued prompt.
    const outcome = await waitForTurns(world.deps, { name: "w1", after: sent.baseline ?? -1 });
    expect(outcome).toMatchObject({ reason: "stop", next: { id: queued.queued?.id } });
    expect(outcome.evidence.attempts?.map((a) => a.passed)).toEqual([false, true]);
    expect(world.prompts).toHaveLength(3);
    expect(world.prompts[1]).toContain("fix it");
    expect(world.prompts[2]).toBe("two");
  });
});

describe("the queue beside a usage limit", () => {
  test.each(["continue", "failover"] as const)(
    "--on-limit %s: a limited turn is not over, so a queued prompt waits for its continuation",
    async (onLimit) => {
      const world = guardWorld((_p, n) => (n === 1 ? { limit: true } : { answer: `answer ${n}` }));
      const meta = world.sessions.get("w1")?.meta;
      if (meta) meta.onLimit = onLimit;
      await sendOrQueue(world.deps, { name: "w1", prompt: "one" });
      await world.clock.advance(1000);
      const two = await sendOrQueue(world.deps, { name: "w1", prompt: "two", queue: true });
      expect(two).toMatchObject({ baseline: null, queued: { position: 0, state: "queued" } });
      // The screen is idle, but status sends nothing while the limit is being waited out.
      expect((await statusOf(world.deps, "w1")).queue?.map((e) => e.state)).toEqual(["queued"]);
      expect(world.prompts).toEqual(["one"]);
    },
  );

  test("--on-limit stop (the default): the limited turn is over, a queued prompt goes at once", async () => {
    const world = guardWorld((_p, n) => (n === 1 ? { limit: true } : { answer: `answer ${n}` }));
    await sendOrQueue(world.deps, { name: "w1", prompt: "one" });
    await world.clock.advance(1000);
    const two = await sendOrQueue(world.deps, { name: "w1", prompt: "two", queue: true });
    expect(two).toMatchObject({ queued: { position: 0, state: "sent" } });
    expect(world.prompts).toEqual(["one", "two"]);
  });
});
