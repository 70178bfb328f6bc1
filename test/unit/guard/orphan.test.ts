import { describe, expect, test } from "bun:test";
import type { GuardRecord } from "../../../src/core/guard/record.ts";
import { waitGuarded } from "../../../src/operations/guard/guard.ts";
import { sendPrompt } from "../../../src/operations/worker/send.ts";
import type { FakeWorld } from "../../helpers/fake-deps.ts";
import { guardWorld } from "../../helpers/guard-world.ts";

/**
 * Issue 22 item 14: a waiter killed (-9) in the middle of a check left that check running; the next
 * `wait` took the dead waiter's guard lock and ran the same attempt's check again beside it (3 of
 * 4), both writing one log. Each check's process is recorded in the guard record while it runs, and
 * a later waiter ends a check it finds left running before it starts that attempt's check again.
 */

const ORPHAN = { pid: 7777, start: "boot+7777" };

/** The guarded turn has stopped, and a waiter that died left its first check running. */
async function orphaned(): Promise<{ world: FakeWorld; baseline: number; ended: (typeof ORPHAN)[] }> {
  const world = guardWorld(() => ({ answer: "done" }));
  const sent = await sendPrompt(world.deps, { name: "w1", prompt: "build it", accept: ["make check"] });
  await world.clock.advance(1000);
  const record = world.guards.get("w1")?.get(sent.baseline) as GuardRecord;
  world.guards.get("w1")?.set(sent.baseline, {
    ...record,
    phase: "checking",
    running: { attempt: 1, check: 1, ...ORPHAN },
  });
  world.processes.set(ORPHAN.pid, ORPHAN.start);
  const ended: (typeof ORPHAN)[] = [];
  const checks = world.deps.checks;
  checks.end = async (proc) => {
    ended.push({ pid: proc.pid, start: proc.start ?? "" });
    world.processes.delete(proc.pid);
  };
  return { world, baseline: sent.baseline, ended };
}

describe("a check left running by a waiter that died", () => {
  test("is ended before the next waiter runs that attempt's check again: never two at once", async () => {
    const { world, baseline, ended } = await orphaned();
    let besideAnother = true;
    world.onCheck = () => {
      besideAnother = world.processes.has(ORPHAN.pid);
      return {};
    };
    const outcome = await waitGuarded(world.deps, { name: "w1", after: baseline });
    expect(outcome).toMatchObject({ reason: "stop" });
    expect(ended).toEqual([ORPHAN]);
    expect(world.checkRuns).toHaveLength(1);
    expect(besideAnother).toBe(false);
    expect(outcome.evidence.attempts?.map((a) => a.passed)).toEqual([true]);
  });

  test("each check's process is in the record while it runs, and gone from it once checked", async () => {
    const world = guardWorld(() => ({ answer: "done" }));
    const sent = await sendPrompt(world.deps, {
      name: "w1",
      prompt: "build it",
      accept: ["make one", "make two"],
    });
    const seen: unknown[] = [];
    world.onCheck = () => {
      seen.push(world.guards.get("w1")?.get(sent.baseline)?.running);
      return {};
    };
    await waitGuarded(world.deps, { name: "w1", after: sent.baseline });
    expect(seen).toEqual([
      { attempt: 1, check: 1, pid: expect.any(Number), start: expect.any(String) },
      { attempt: 1, check: 2, pid: expect.any(Number), start: expect.any(String) },
    ]);
    expect(world.guards.get("w1")?.get(sent.baseline)?.running).toBeUndefined();
  });

  test("one that has ended by itself (its pid gone) is simply run again", async () => {
    const { world, baseline, ended } = await orphaned();
    world.processes.delete(ORPHAN.pid);
    const outcome = await waitGuarded(world.deps, { name: "w1", after: baseline });
    expect(outcome.reason).toBe("stop");
    // end is asked all the same: it is the adapter that knows a gone process from a live one.
    expect(ended).toEqual([ORPHAN]);
    expect(world.checkRuns).toHaveLength(1);
  });
});
