import { describe, expect, test } from "bun:test";
import { ancestorsOf, findCycle, type PlanStep, planWorkflow } from "../../../src/core/workflow/plan.ts";
import { loadWorkflow } from "../../../src/core/workflow/validate.ts";

const s = (id: string, run: string, needs: string[] = []): PlanStep => ({ id, run, needs });

describe("planWorkflow", () => {
  test("sequential steps are one wave each", () => {
    const plan = planWorkflow([s("a", "w"), s("b", "v", ["a"]), s("c", "u", ["b"])]);
    expect(plan.waves).toEqual([["a"], ["b"], ["c"]]);
    expect(plan.order).toEqual(["a", "b", "c"]);
  });

  test("fan-out and fan-in", () => {
    const plan = planWorkflow([
      s("root", "w1"),
      s("left", "w2", ["root"]),
      s("right", "w3", ["root"]),
      s("join", "w1", ["left", "right"]),
    ]);
    expect(plan.waves).toEqual([["root"], ["left", "right"], ["join"]]);
    expect(plan.waitsFor).toEqual({ root: [], left: ["root"], right: ["root"], join: ["left", "right"] });
  });

  test("steps on one worker run one at a time, in file order when independent", () => {
    const plan = planWorkflow([s("a", "w"), s("b", "w"), s("c", "v")]);
    expect(plan.workers).toEqual({ w: ["a", "b"], v: ["c"] });
    expect(plan.waitsFor.b).toEqual(["a"]);
    expect(plan.waves).toEqual([["a", "c"], ["b"]]);
  });

  test("…in file order even when an earlier step waits on another worker", () => {
    const plan = planWorkflow([s("slow", "v"), s("early", "w", ["slow"]), s("late", "w")]);
    expect(plan.order).toEqual(["slow", "early", "late"]);
    expect(plan.workers.w).toEqual(["early", "late"]);
    expect(plan.waitsFor.late).toEqual(["early"]);
    expect(plan.waves).toEqual([["slow"], ["early"], ["late"]]);
  });

  test("…and in dependency order when a step needs a later one on its worker", () => {
    const plan = planWorkflow([s("first", "w", ["second"]), s("second", "w")]);
    expect(plan.workers.w).toEqual(["second", "first"]);
    expect(plan.waves).toEqual([["second"], ["first"]]);
  });

  test("a need listed before its step in the file is fine", () => {
    expect(planWorkflow([s("b", "w", ["a"]), s("a", "v")]).order).toEqual(["a", "b"]);
  });
});

describe("cycles", () => {
  test.each([
    [[s("a", "w", ["a"])], ["a", "a"]],
    [
      [s("a", "w", ["b"]), s("b", "w", ["a"])],
      ["a", "b", "a"],
    ],
    [
      [s("x", "w"), s("a", "w", ["b", "x"]), s("b", "w", ["c"]), s("c", "w", ["a"])],
      ["a", "b", "c", "a"],
    ],
  ])("findCycle %#", (steps, cycle) => {
    expect(findCycle(steps)).toEqual(cycle);
  });

  test("no cycle in a DAG", () => {
    expect(findCycle([s("a", "w"), s("b", "w", ["a"]), s("c", "w", ["a", "b"])])).toBeNull();
  });

  test("a cycle is a validation error naming it, at the need that closes it", () => {
    const text = `workers: { w: {} }
steps:
  - { id: a, run: w, prompt: p, needs: [c] }
  - { id: b, run: w, prompt: p, needs: [a] }
  - { id: c, run: w, prompt: p, needs: [b] }
`;
    expect(() => loadWorkflow(text, "wf.yaml")).toThrow(
      "wf.yaml:3:41: steps[0].needs[0]: cycle: a → c → b → a (each needs the next)",
    );
  });
});

test("ancestorsOf follows needs transitively and tolerates cycles", () => {
  const steps = [s("a", "w"), s("b", "w", ["a"]), s("c", "w", ["b"]), s("d", "w")];
  expect([...ancestorsOf(steps, "c")].sort()).toEqual(["a", "b"]);
  expect([...ancestorsOf(steps, "d")]).toEqual([]);
  expect([...ancestorsOf([s("a", "w", ["b"]), s("b", "w", ["a"])], "a")].sort()).toEqual(["a", "b"]);
});
