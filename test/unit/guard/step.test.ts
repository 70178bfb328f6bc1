import { describe, expect, test } from "bun:test";
import { guardMove, lockedMove } from "../../../src/core/guard/step.ts";

/** The guard loop's next move (core/guard/step.ts): the record and the turn this waiter last saw end. */

const rec = (phase: "turn" | "checking" | "feedback" | "done", turns: number[]) => ({
  phase,
  turns,
  baseline: 4,
});

describe("before the lock", () => {
  test.each([
    ["done: finish", rec("done", [4]), null, { kind: "finish" }],
    ["its turn, not yet seen to end: watch it", rec("turn", [4]), null, { kind: "watch", turn: 4 }],
    ["the feedback's turn (attempt 2): watch that one", rec("turn", [4, 9]), 4, { kind: "watch", turn: 9 }],
    ["its turn seen to end: take the lock", rec("turn", [4]), 4, { kind: "lock" }],
    ["another waiter is checking: take the lock (wait for it)", rec("checking", [4]), null, { kind: "lock" }],
    ["feedback to send: take the lock", rec("feedback", [4]), 4, { kind: "lock" }],
  ] as const)("%s", (_, record, waited, move) => {
    expect(guardMove({ ...record, turns: [...record.turns] }, waited)).toEqual(move);
  });
});

describe("with the lock held, the record read again", () => {
  test.each([
    ["another waiter finished it: look again", rec("done", [4]), 4, "again"],
    ["another waiter moved on to a later attempt: look again", rec("turn", [4, 9]), 4, "again"],
    ["the turn this waiter saw end: check it", rec("turn", [4]), 4, "check"],
    ["a check a dead waiter left (checking): check again", rec("checking", [4]), 4, "check"],
    ["checked, feedback not sent: send it", rec("feedback", [4]), 4, "feedback"],
  ] as const)("%s", (_, record, waited, kind) => {
    expect(lockedMove({ ...record, turns: [...record.turns] }, waited).kind).toBe(kind);
  });
});
