import { describe, expect, test } from "bun:test";
import { WorkerBusyError } from "../../../src/core/errors.ts";
import type { SendOutput } from "../../../src/core/fleet/queue.ts";
import type { GuardRecord } from "../../../src/core/guard/record.ts";
import { sendOrQueue } from "../../../src/operations/fleet/queue.ts";
import { waitForTurns } from "../../../src/operations/fleet/wait-many.ts";
import { waitGuarded } from "../../../src/operations/guard/guard.ts";
import { guardWorld } from "../../helpers/guard-world.ts";

/**
 * Issue 22 item 13: while a guarded turn is open (its checks or its feedback turn still to come) the
 * worker is busy for every sender but its own guard loop. `send --queue` was typed between a
 * failed accept check and its feedback turn (2 of 2), and a plain send was accepted there too, so
 * the next attempt was checked on what the queued turn left. A plain send now exits 4 (nothing
 * typed); --queue waits for the guarded turn's end, and the queue sends it after the last attempt.
 */

type Window = "stopped, not yet checked" | "checking" | "between the failed check and its feedback";

/** A guarded prompt whose first check fails, and the other senders' tries at `window`. */
async function probe(window: Window) {
  const world = guardWorld((_p, n) => ({ answer: `answer ${n}` }));
  const tries: { plain: unknown; queued: SendOutput | null }[] = [];
  const interfere = async () => {
    const plain = await sendOrQueue(world.deps, { name: "w1", prompt: "plain" }).catch((e: unknown) => e);
    const queued = await sendOrQueue(world.deps, { name: "w1", prompt: "queued", queue: true });
    tries.push({ plain, queued });
  };
  world.onCheck = async (_c, o) => {
    if (window === "checking" && o.env.UMBEL_ATTEMPT === "1") await interfere();
    return o.env.UMBEL_ATTEMPT === "1" ? { exitCode: 1, output: "fix it" } : {};
  };
  if (window === "between the failed check and its feedback") {
    const write = world.deps.guards.write;
    let once = false;
    world.deps.guards.write = async (name: string, record: GuardRecord) => {
      await write(name, record);
      if (record.phase === "feedback" && !once) {
        once = true;
        await interfere();
      }
    };
  }
  const sent = await sendOrQueue(world.deps, { name: "w1", prompt: "guarded", accept: ["make check"] });
  // The first attempt's turn ends (the fake answers in 500 ms); no one has checked it yet.
  await world.clock.advance(1000);
  if (window === "stopped, not yet checked") await interfere();
  const outcome = await waitForTurns(world.deps, { name: "w1", after: sent.baseline ?? -1 });
  return { world, tries, outcome };
}

describe("a guarded turn that is not over keeps the worker busy for every other sender", () => {
  test.each<Window>(["stopped, not yet checked", "checking", "between the failed check and its feedback"])(
    "%s: a plain send is refused busy (4), --queue queues, and the attempts are checked on their own turns",
    async (window) => {
      const { world, tries, outcome } = await probe(window);
      expect(tries).toHaveLength(1);
      const [{ plain, queued }] = tries as [{ plain: unknown; queued: SendOutput }];
      expect(plain).toBeInstanceOf(WorkerBusyError);
      expect((plain as WorkerBusyError).exitCode).toBe(4);
      expect((plain as WorkerBusyError).message).toContain("guarded turn");
      expect(queued).toMatchObject({ baseline: null, queued: { position: 0, state: "queued" } });
      // The loop: attempt 1 failed, its feedback turn passed; then the queue sent its prompt.
      expect(outcome).toMatchObject({ reason: "stop", next: { id: queued.queued?.id } });
      expect(outcome.evidence.attempts?.map((a) => a.passed)).toEqual([false, true]);
      expect(world.prompts[0]).toBe("guarded");
      expect(world.prompts[1]).toContain("fix it");
      expect(world.prompts.slice(2)).toEqual(["queued"]);
    },
  );

  test("its own loop still sends the feedback, and a second waiter follows the same guard", async () => {
    const world = guardWorld((_p, n) => ({ answer: `answer ${n}` }));
    world.onCheck = (_c, o) => (o.env.UMBEL_ATTEMPT === "1" ? { exitCode: 1, output: "again" } : {});
    const sent = await sendOrQueue(world.deps, { name: "w1", prompt: "guarded", accept: ["make check"] });
    const [a, b] = await Promise.all([
      waitGuarded(world.deps, { name: "w1", after: sent.baseline ?? -1 }),
      waitGuarded(world.deps, { name: "w1", after: sent.baseline ?? -1 }),
    ]);
    expect([a.reason, b.reason]).toEqual(["stop", "stop"]);
    expect(world.prompts).toHaveLength(2);
  });

  test("a guarded turn that ended at a usage limit has ended (no check owes it): a send is taken", async () => {
    const world = guardWorld((_p, n) => (n === 1 ? { limit: true } : { answer: `answer ${n}` }));
    const sent = await sendOrQueue(world.deps, { name: "w1", prompt: "guarded", accept: ["make check"] });
    expect((await waitGuarded(world.deps, { name: "w1", after: sent.baseline ?? -1 })).reason).toBe(
      "limited",
    );
    const next = await sendOrQueue(world.deps, { name: "w1", prompt: "go on" });
    expect(next.baseline).toBeNumber();
    expect(world.prompts).toEqual(["guarded", "go on"]);
  });

  test("a guard that is done frees the worker", async () => {
    const world = guardWorld((_p, n) => ({ answer: `answer ${n}` }));
    const sent = await sendOrQueue(world.deps, { name: "w1", prompt: "guarded", accept: ["make check"] });
    expect((await waitGuarded(world.deps, { name: "w1", after: sent.baseline ?? -1 })).reason).toBe("stop");
    await world.clock.advance(100);
    expect((await sendOrQueue(world.deps, { name: "w1", prompt: "next" })).baseline).toBeNumber();
  });
});
