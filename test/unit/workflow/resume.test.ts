import { describe, expect, test } from "bun:test";
import { describePlan, resolveWorkerCwd } from "../../../src/core/workflow/describe.ts";
import { planResume } from "../../../src/core/workflow/state.ts";
import { loadWorkflow } from "../../../src/core/workflow/validate.ts";
import { renderPlan } from "../../../src/faces/workflow/render.ts";

const TEXT = `workers:
  a: { cwd: ./sub, model: sonnet, env: { T: { fromEnv: TOKEN } } }
  b: { cwd: /abs/dir }
steps:
  - { id: one, run: a, prompt: "hello {{ env.WHO }}", outputs: { text: answer } }
  - { id: two, run: b, prompt: "got {{ steps.one.outputs.text }}", needs: [one], outputs: { f: "file:out.md" } }
  - { id: three, run: a, prompt: "again", needs: [one], fresh: true }
`;

describe("planResume", () => {
  const order = ["one", "two", "three"];
  const declared = { one: ["text"], two: ["f"], three: [] };

  test("re-runs every step that did not finish and reuses the outputs of those that did", () => {
    const plan = planResume(order, declared, {
      steps: {
        one: { status: "done", worker: "a", outputs: { text: "hi" } },
        two: { status: "failed", worker: "b" },
        three: { status: "stopped", worker: "a" },
      },
    });
    expect(plan).toEqual({ reused: { one: { text: "hi" } }, rerun: ["two", "three"] });
  });

  test.each(["pending", "starting", "running", "failed", "stopped"] as const)(
    "a %s step runs again",
    (status) => {
      const plan = planResume(order, declared, {
        steps: {
          one: { status, worker: "a" },
          two: { status: "pending", worker: "b" },
          three: { status: "done", worker: "a" },
        },
      });
      expect(plan.rerun).toEqual(["one", "two"]);
      expect(plan.reused).toEqual({ three: {} });
    },
  );

  test("a done step whose recorded outputs lack a declared one runs again", () => {
    const plan = planResume(order, declared, {
      steps: { one: { status: "done", worker: "a", outputs: {} } },
    });
    expect(plan.rerun).toEqual(["one", "two", "three"]);
  });
});

describe("describePlan (the dry run)", () => {
  const loaded = loadWorkflow(TEXT, "wf.yaml");
  const base = {
    workflow: loaded.workflow,
    plan: loaded.plan,
    file: "wf.yaml",
    baseDir: "/repo/flows",
    defaultProvider: "claude" as const,
  };

  test("waves, workers with resolved cwds, env names only, prompts resolved where resolvable", () => {
    const plan = describePlan({ ...base, env: { WHO: "world", TOKEN: "secret" } });
    expect(plan.workers.a).toEqual({
      provider: "claude",
      model: "sonnet",
      cwd: "/repo/flows/sub",
      env: ["T"],
      steps: ["one", "three"],
    });
    expect(plan.workers.b?.cwd).toBe("/abs/dir");
    expect(JSON.stringify(plan)).not.toContain("secret");
    expect(plan.waves.map((w) => w.map((s) => s.id))).toEqual([["one"], ["two", "three"]]);
    const [one] = plan.waves[0] ?? [];
    const [two, three] = plan.waves[1] ?? [];
    expect(one).toMatchObject({ prompt: "hello world", unresolved: [] });
    expect(two).toMatchObject({
      prompt: "got {{ steps.one.outputs.text }}",
      unresolved: ["{{ steps.one.outputs.text }}"],
      outputs: { f: "file:out.md" },
    });
    expect(three).toMatchObject({ fresh: true, waitsFor: ["one"] });
  });

  test("a step's guardrails are in the plan, and in its rendering", () => {
    const text =
      "workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: p, schema: { type: object }, accept: [npm test], maxAttempts: 4 }\n";
    const guarded = loadWorkflow(text, "wf.yaml");
    const plan = describePlan({
      workflow: guarded.workflow,
      plan: guarded.plan,
      file: "wf.yaml",
      baseDir: "/r",
      env: {},
      defaultProvider: "claude",
    });
    expect(plan.waves[0]?.[0]).toMatchObject({ schema: true, accept: ["npm test"], maxAttempts: 4 });
    expect(renderPlan(plan)).toContain("s on a  (structured output; accept `npm test`)");
  });

  test("on a resume, reused outputs fill the prompts and the reused steps are marked", () => {
    const plan = describePlan({
      ...base,
      env: { WHO: "w" },
      reused: { one: { text: "HI" } },
      resumeOf: "20250101-120000-a1b2c3",
    });
    expect(plan.resume).toEqual({ runId: "20250101-120000-a1b2c3", reused: ["one"] });
    expect(plan.waves[0]?.[0]?.reused).toBe(true);
    expect(plan.waves[1]?.[0]).toMatchObject({ prompt: "got HI", unresolved: [] });
  });

  test.each([
    [undefined, "/repo/flows"],
    ["./sub", "/repo/flows/sub"],
    ["../x", "/repo/x"],
    ["/abs", "/abs"],
  ])("cwd %p resolves to %p", (cwd, expected) => {
    expect(resolveWorkerCwd("/repo/flows", cwd)).toBe(expected);
  });
});
