// `umbel run --resume`: what happens to each worker the run made. A worker whose tmux is alive is
// kept (and a step whose turn it was is continued, not sent again); one whose tmux is gone resumes
// its CLI's recorded session in a new worker; one with nothing to resume, or a `fresh` step, starts
// fresh. Every other live session of the run is killed.
import { describe, expect, test } from "bun:test";
import { planWorkerResume, type SessionSeen } from "../../../src/core/workflow/resume.ts";

const steps = [
  { id: "plan", run: "a" },
  { id: "fix", run: "a" },
  { id: "review", run: "b" },
  { id: "polish", run: "c", fresh: true },
  { id: "notes", run: "d" },
];
const seen = (name: string, over: Partial<SessionSeen> = {}): SessionSeen => ({
  name,
  alive: false,
  providerSession: null,
  tookPrompt: true,
  ...over,
});

describe("planWorkerResume", () => {
  test("kept (its step's turn continued), resumed, fresh for a fresh step, fresh with no session", () => {
    const plan = planWorkerResume({
      steps,
      rerun: ["fix", "review", "polish", "notes"],
      records: {
        plan: { status: "done", worker: "a", session: "a-x-1" },
        fix: { status: "failed", worker: "a", session: "a-x-1", baseline: 7 },
        review: { status: "stopped", worker: "b", session: "b-x-2", baseline: 3 },
        polish: { status: "pending", worker: "c" },
        notes: { status: "pending", worker: "d" },
      },
      current: { a: "a-x-1", b: "b-x-2", c: "c-x-3", d: "d-x-4" },
      seen: [
        seen("a-x-0", { alive: true }),
        seen("a-x-1", { alive: true, providerSession: "s-a" }),
        seen("b-x-2", { providerSession: "s-b" }),
        seen("c-x-3", { alive: true, providerSession: "s-c" }),
        seen("d-x-4", { providerSession: "s-d", tookPrompt: false }),
      ],
    });
    expect(plan.workers).toEqual([
      { worker: "a", how: "kept", session: "a-x-1", continues: "fix" },
      { worker: "b", how: "resumed", session: "b-x-2", providerSession: "s-b" },
      { worker: "c", how: "fresh", session: "c-x-3", why: "its next step is fresh" },
      { worker: "d", how: "fresh", session: "d-x-4", why: "its session recorded no conversation" },
    ]);
    expect(plan.continueTurns).toEqual({ fix: { session: "a-x-1", baseline: 7 } });
    expect(plan.resumeFrom).toEqual({ b: "s-b" });
    expect(plan.kept).toEqual({ a: "a-x-1" });
    // An older session of a (replaced by a fresh step) and c's (its next step is fresh) go.
    expect(plan.kill).toEqual(["a-x-0", "c-x-3"]);
  });

  test("a kept worker whose next step never ran: that step is sent as usual (no turn to continue)", () => {
    const plan = planWorkerResume({
      steps,
      rerun: ["fix"],
      records: {
        plan: { status: "done", worker: "a", session: "a-x-1", baseline: 2 },
        fix: { status: "pending", worker: "a" },
      },
      current: { a: "a-x-1" },
      seen: [seen("a-x-1", { alive: true })],
    });
    expect(plan.workers).toEqual([{ worker: "a", how: "kept", session: "a-x-1" }]);
    expect(plan.continueTurns).toEqual({});
  });

  test("a worker with nothing left to run is not reported; its live session is killed", () => {
    const plan = planWorkerResume({
      steps,
      rerun: ["review"],
      records: { review: { status: "failed", worker: "b", session: "b-x-2" } },
      current: { a: "a-x-1", b: "b-x-2" },
      seen: [seen("a-x-1", { alive: true }), seen("b-x-2", { providerSession: "s-b" })],
    });
    expect(plan.workers.map((w) => w.worker)).toEqual(["b"]);
    expect(plan.kill).toEqual(["a-x-1"]);
  });

  test("a CLI whose conversations live in each worker's home (gemini) starts fresh, saying why", () => {
    const plan = planWorkerResume({
      steps,
      rerun: ["review"],
      records: { review: { status: "failed", worker: "b", session: "b-x-2" } },
      current: { b: "b-x-2" },
      seen: [
        seen("b-x-2", {
          providerSession: "s-b",
          unresumable: "gemini keeps its conversations in each worker's own home",
        }),
      ],
    });
    expect(plan.workers).toEqual([
      {
        worker: "b",
        how: "fresh",
        session: "b-x-2",
        why: "gemini keeps its conversations in each worker's own home",
      },
    ]);
    expect(plan.resumeFrom).toEqual({});
  });

  test("a worker the run never spawned starts fresh, with no session named", () => {
    const plan = planWorkerResume({
      steps,
      rerun: ["review"],
      records: { review: { status: "pending", worker: "b" } },
      current: {},
      seen: [],
    });
    expect(plan.workers).toEqual([
      { worker: "b", how: "fresh", session: null, why: "it had no session yet" },
    ]);
  });
});
