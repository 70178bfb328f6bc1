import { describe, expect, test } from "bun:test";
import {
  type DrainCheck,
  drainDone,
  type FollowSummary,
  type HaltState,
  initialHalt,
  maxTurnsHit,
  stepHalt,
} from "../../../src/core/print/follow.ts";
import type { Outcome } from "../../../src/core/wait/outcome.ts";

/** -p's follow of a turn as a pure machine (core/follow.ts): --max-turns, the drain, whose stop it was. */

const at = (assistantMessages: number, more: Partial<FollowSummary> = {}): FollowSummary => ({
  assistantMessages,
  complete: false,
  stopReason: null,
  toolsPending: 0,
  ...more,
});
const fresh = initialHalt(false);
const outcome = (reason: Outcome["reason"], evidence: Outcome["evidence"] = {}): Outcome => ({
  reason,
  exitCode: 0,
  name: "w",
  baseline: 0,
  elapsedMs: 0,
  evidence,
});

/** Feeds the summaries in order; the actions of each step and the last state. */
function run(mode: "hook" | "interrupt", max: number | undefined, steps: FollowSummary[], start = fresh) {
  let state: HaltState = start;
  const actions = steps.map((s) => {
    const next = stepHalt(mode, max, state, s);
    state = next.state;
    return next.actions;
  });
  return { actions, state };
}

describe("--max-turns, hook mode (claude, gemini)", () => {
  test.each([
    ["no --max-turns: nothing, ever", undefined, [at(1), at(5), at(9, { complete: true })], [[], [], []]],
    [
      "armed at the Nth message; the CLI stops after its tool (complete): the wait stops",
      2,
      [at(1), at(2, { stopReason: "tool_use" }), at(2, { complete: true, stopReason: "tool_use" })],
      [[], ["arm"], ["stop-wait"]],
    ],
    [
      "the halt came too late (an N+1th message): Escape, then stop waiting",
      1,
      [at(1), at(2)],
      [["arm"], ["escape", "stop-wait"]],
    ],
    // Its end marker can land before the wait has seen the Stop hook (gemini writes the answer before
    // AfterAgent): stopping the wait then read the answered turn as --max-turns' halt.
    [
      "the Nth message was the final answer: armed, and the wait returns its stop",
      1,
      [at(1, { complete: true, stopReason: "end_turn" })],
      [["arm"]],
    ],
    [
      "once halted, nothing more",
      1,
      [at(2), at(3), at(3, { complete: true })],
      [["arm", "escape", "stop-wait"], [], []],
    ],
  ] as const)("%s", (_, max, steps, expected) => {
    expect(run("hook", max, [...steps]).actions).toEqual(expected.map((a) => [...a]));
  });

  test("armed before the prompt (--max-turns 1): never armed again", () => {
    const { actions, state } = run(
      "hook",
      1,
      [at(1, { stopReason: "tool_use" }), at(1, { complete: true, stopReason: "tool_use" })],
      initialHalt(true),
    );
    expect(actions).toEqual([[], ["stop-wait"]]);
    expect(state).toMatchObject({ armed: true, halted: true });
  });
});

describe("--max-turns, interrupt mode (codex)", () => {
  test.each([
    ["before the Nth message: nothing", 2, [at(1, { stopReason: "tool_use" })], [[]]],
    [
      "the Nth message's tools still running: wait",
      1,
      [at(1, { stopReason: "tool_use", toolsPending: 1 })],
      [[]],
    ],
    [
      "the Nth message's tools done: arm and interrupt",
      1,
      [at(1, { stopReason: "tool_use", toolsPending: 1 }), at(1, { stopReason: "tool_use" })],
      [[], ["arm", "interrupt"]],
    ],
    [
      "a message that still lands is interrupted again, once",
      1,
      [at(1, { stopReason: "tool_use" }), at(2), at(2)],
      [["arm", "interrupt"], ["arm", "interrupt"], []],
    ],
    [
      "a turn that ended on its own keeps its answer",
      1,
      [at(1, { complete: true, stopReason: "end_turn" })],
      [[]],
    ],
    [
      "the Nth message with no tool: not yet (it may be the answer)",
      1,
      [at(1, { stopReason: "end_turn" })],
      [[]],
    ],
  ] as const)("%s", (_, max, steps, expected) => {
    expect(run("interrupt", max, [...steps]).actions).toEqual(expected.map((a) => [...a]));
  });
});

describe("the drain after the wait", () => {
  const base: DrainCheck = {
    outcome: outcome("stop", { message: "the answer" }),
    guardHalted: false,
    summary: { complete: false, apiError: null, timingsPending: 0 },
    lastText: "",
    now: 0,
    until: 3000,
  };
  test.each([
    ["a stop: not before the transcript has more", {}, false],
    ["a stop: the end marker is in", { summary: { complete: true, apiError: null } }, true],
    [
      "a stop: an API error ended it",
      { summary: { complete: false, apiError: { status: 500, type: null } } },
      true,
    ],
    [
      "a stop whose hook gave the answer: done once the transcript holds it",
      { lastText: "so: the answer\n" },
      true,
    ],
    [
      "…but not while an answer's request time is still to come",
      { lastText: "the answer", summary: { complete: false, apiError: null, timingsPending: 1 } },
      false,
    ],
    [
      "an empty hook answer proves nothing",
      { outcome: outcome("stop", { message: " " }), lastText: " " },
      false,
    ],
    ["the bound passed", { now: 3000 }, true],
    ["an outcome that gets no more lines (timeout): at once", { outcome: outcome("timeout") }, true],
    ["a provider error drains like a stop", { outcome: outcome("provider-error") }, false],
    [
      "umbel's guard halted the turn: it drains too",
      { outcome: outcome("aborted"), guardHalted: true },
      false,
    ],
    ["no outcome (the wait threw): at once", { outcome: undefined }, true],
    [
      "an interrupted stop drains for -p",
      { outcome: outcome("stop", { message: null, interrupted: true }) },
      false,
    ],
    [
      "…and not for ACP (skipInterrupted)",
      { outcome: outcome("stop", { message: null, interrupted: true }), skipInterrupted: true },
      true,
    ],
    ["…which drains a stop with its hook as before", { skipInterrupted: true }, false],
  ] as const)("%s", (_, change, expected) => {
    expect(drainDone({ ...base, ...(change as Partial<DrainCheck>) })).toBe(expected);
  });
});

describe("whose stop it was", () => {
  const halted = { armed: true, halted: true, interruptedAt: 1 };
  test.each([
    ["umbel halted, the wait stopped (aborted by us): the value", halted, outcome("aborted"), false, 2],
    [
      "umbel halted, the CLI stopped interrupted: the value",
      halted,
      outcome("stop", { interrupted: true }),
      false,
      2,
    ],
    ["the caller aborted: not ours", halted, outcome("aborted"), true, null],
    ["a stop that came first wins", halted, outcome("stop"), false, null],
    ["never halted", fresh, outcome("aborted"), false, null],
  ] as const)("%s", (_, state, o, callerAborted, expected) => {
    expect(maxTurnsHit(state, o, callerAborted, 2)).toBe(expected);
  });
});
