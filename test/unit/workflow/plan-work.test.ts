import { describe, expect, test } from "bun:test";
import { describePlan } from "../../../src/core/workflow/describe.ts";
import { findCycle, type PlanStep, planWorkflow, type WorkMeter } from "../../../src/core/workflow/plan.ts";
import type { Workflow } from "../../../src/core/workflow/schema.ts";
import { checkWorkflow } from "../../../src/core/workflow/validate.ts";
import { renderPlan } from "../../../src/faces/workflow/render.ts";

/**
 * Planning is linear in the steps and needs (issue 11: 4,000 steps took 2.2 s, 8,000 took 10.3 s).
 * The algorithms count their own work (each step, edge and heap move they touch), so this shows the
 * growth without timing anything: ten times the steps must cost about ten times the work (a
 * quadratic plan costs a hundred times; the ready queue's heap adds a log factor, ~1.3 here).
 */

type Shape = (n: number) => PlanStep[];
const ids = (n: number) => Array.from({ length: n }, (_, i) => `s${i}`);
const SHAPES: [string, Shape][] = [
  ["a chain on one worker", (n) => ids(n).map((id, i) => ({ id, run: "w", needs: i ? [`s${i - 1}`] : [] }))],
  ["independent steps on one worker", (n) => ids(n).map((id) => ({ id, run: "w" }))],
  [
    "a chain round-robin over 7 workers",
    (n) => ids(n).map((id, i) => ({ id, run: `w${i % 7}`, needs: i ? [`s${i - 1}`] : [] })),
  ],
  [
    "a fan-out and fan-in",
    (n) =>
      ids(n).map((id, i) => ({
        id,
        run: `w${i}`,
        needs: i === 0 ? [] : i === n - 1 ? ids(n - 1) : ["s0"],
      })),
  ],
  [
    "a chain listed backwards",
    (n) => ids(n).map((id, i) => ({ id, run: "w", needs: i < n - 1 ? [`s${i + 1}`] : [] })),
  ],
];

function measure(run: (meter: WorkMeter) => void): number {
  const meter = { count: 0 };
  run(meter);
  return meter.count;
}

function expectLinear(cost: (n: number) => number) {
  const small = cost(1_000);
  const large = cost(10_000);
  expect(small).toBeGreaterThan(0);
  expect(large / small).toBeLessThan(15);
}

describe("planning counts its work, and it grows linearly", () => {
  test.each(SHAPES)("planWorkflow: %s", (_what, shape) => {
    expectLinear((n) => {
      const steps = shape(n);
      return measure((meter) => planWorkflow(steps, meter));
    });
  });

  test.each(SHAPES)("findCycle: %s", (_what, shape) => {
    expectLinear((n) => {
      const steps = shape(n);
      return measure((meter) => findCycle(steps, meter));
    });
  });

  const withRefs = (steps: PlanStep[], ref: (i: number) => number): Workflow => ({
    workers: Object.fromEntries(steps.map((s) => [s.run, { provider: "claude" }])),
    steps: steps.map((s, i) => ({
      id: s.id,
      run: s.run,
      needs: [...(s.needs ?? [])],
      outputs: { o: "answer" },
      prompt: i === 0 ? "p" : `use {{ steps.s${ref(i)}.outputs.o }}`,
    })),
  });

  test.each([
    ["the previous step's output", (i: number) => i - 1],
    ["the first step's output", () => 0],
    ["the output two steps back", (i: number) => Math.max(0, i - 2)],
  ])("checkWorkflow: every step of a chain uses %s", (_what, ref) => {
    expectLinear((n) => {
      const wf = withRefs(SHAPES[0]?.[1](n) ?? [], ref);
      return measure((meter) => expect(checkWorkflow(wf, meter)).toEqual([]));
    });
  });
});

test("a 10,000-step chain plans into 10,000 waves with each step waiting for the one before", () => {
  const plan = planWorkflow(SHAPES[0]?.[1](10_000) ?? []);
  expect(plan.waves).toHaveLength(10_000);
  expect(plan.waitsFor.s9999).toEqual(["s9998"]);
  expect(plan.order.at(-1)).toBe("s9999");
});

test("a fan-in of 10,000 needs plans and renders its join step in one line", () => {
  const steps = SHAPES[3]?.[1](10_001) ?? [];
  const workflow: Workflow = {
    workers: Object.fromEntries(steps.map((s) => [s.run, { provider: "claude" }])),
    steps: steps.map((s) => ({ id: s.id, run: s.run, needs: [...(s.needs ?? [])], prompt: "p" })),
  };
  const plan = planWorkflow(workflow.steps);
  const text = renderPlan(
    describePlan({ workflow, plan, file: "wf.yaml", baseDir: "/w", env: {}, defaultProvider: "claude" }),
  );
  const join = text.split("\n").find((line) => line.startsWith("  s10000 on w10000"));
  expect(join).toStartWith("  s10000 on w10000  (needs s0, s1, s2,");
  expect(join).not.toContain("after");
  expect(plan.waves.map((w) => w.length)).toEqual([1, 9_999, 1]);
});
