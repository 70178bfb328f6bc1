import { describe, expect, test } from "bun:test";
import type { RunSummary, WorkflowEvent } from "../../../src/core/workflow/state.ts";
import { applyEvent, type LiveModel, renderLive } from "../../../src/faces/workflow/live.ts";
import {
  createRunProgress,
  renderEventLine,
  renderFailure,
  renderSummary,
} from "../../../src/faces/workflow/render.ts";

const RUN = "20250101-120000-a1b2c3";
const start: WorkflowEvent = {
  event: "run",
  runId: RUN,
  file: "wf.yaml",
  stateDir: "/s",
  attempt: 2,
  at: "2025-01-01T12:00:00.000Z",
  steps: [
    { id: "review", worker: "reviewer", status: "done" },
    { id: "fix", worker: "fixer", status: "pending" },
  ],
};
const step = (status: "starting" | "running" | "failed", extra: object = {}): WorkflowEvent => ({
  event: "step",
  runId: RUN,
  step: "fix",
  worker: "fixer",
  status,
  at: "2025-01-01T12:00:03.000Z",
  ...extra,
});

describe("the live view", () => {
  test("shows each step's state and elapsed time; steps done in an earlier attempt say so", () => {
    let model: LiveModel = { runId: "", rows: [] };
    model = applyEvent(model, start, 0);
    model = applyEvent(model, step("starting"), 1000);
    model = applyEvent(model, step("running", { session: "fixer-a1b2c3-3" }), 2000);
    expect(renderLive(model, 5500)).toBe(
      [
        `umbel run ${RUN} · 1/2 done`,
        "  ✓  review  reviewer  done      earlier",
        "  ▶  fix     fixer     running        4s  fixer-a1b2c3-3",
        "",
      ].join("\n"),
    );
    model = applyEvent(model, step("failed", { elapsedMs: 61_000, failure: { outcome: "timeout" } }), 9000);
    expect(renderLive(model, 99_000).split("\n")[2]).toBe(
      "  ✗  fix     fixer     failed       1m1s  timeout",
    );
  });
});

describe("log lines and the summary", () => {
  test("one line per transition", () => {
    expect(renderEventLine(start)).toBe(`12:00:00 run ${RUN} started (attempt 2, 2 steps; state in /s)\n`);
    expect(renderEventLine(step("running", { session: "fixer-a1b2c3-3" }))).toBe(
      "12:00:03 fix (fixer) [fixer-a1b2c3-3] running\n",
    );
  });

  test("a failed run says how to resume, and the failure shows its evidence", () => {
    const failure = {
      step: "fix",
      worker: "fixer",
      session: "fixer-a1b2c3-3",
      outcome: "input",
      exitCode: 126,
      message: "the worker needs input: Do you want to proceed?",
      evidence: { prompt: "Do you want to proceed?", screen: "line 1\n❯ 1. Yes" },
    };
    const summary: RunSummary = {
      event: "summary",
      dryRun: false,
      runId: RUN,
      status: "failed",
      exitCode: 126,
      elapsedMs: 4200,
      stateDir: "/s",
      attempt: 1,
      steps: { review: "done", fix: "failed" },
      outputs: {},
      failure,
    };
    expect(renderSummary(summary)).toBe(
      `run ${RUN} failed: 1/2 steps done in 4.2s (exit 126)\nresume with: umbel run --resume ${RUN}\nstate: /s\n`,
    );
    expect(renderFailure(failure)).toBe(
      [
        "umbel: step fix failed on worker fixer (fixer-a1b2c3-3): input (exit 126)",
        "  the worker needs input: Do you want to proceed?",
        "  last screen:",
        "    │ line 1",
        "    │ ❯ 1. Yes",
        "",
      ].join("\n"),
    );
  });
});

test("MCP progress: always growing, with how far the run is", () => {
  const progress = createRunProgress();
  expect(progress(start)).toEqual({
    progress: 1,
    message: `1/2 steps finished · 12:00:00 run ${RUN} started (attempt 2, 2 steps; state in /s)`,
  });
  expect(progress(step("starting"))?.progress).toBe(2);
  expect(progress(step("failed", { failure: { outcome: "dead" } }))).toEqual({
    progress: 3,
    message: "2/2 steps finished · 12:00:03 fix (fixer) failed: dead",
  });
});

describe("a dialog a run's worker answered (trust is never given silently)", () => {
  const dialog: WorkflowEvent = {
    event: "dialog",
    runId: RUN,
    at: "2025-01-01T12:00:02.000Z",
    session: "fixer-a1b2c3-3",
    provider: "claude",
    dialog: "trust",
    answer: "Yes, I trust this folder",
    folders: ["/src/app"],
    lasting: true,
    record: "/home/u/.claude.json",
  };
  const line =
    'umbel: fixer-a1b2c3-3: answered claude\'s trust dialog for /src/app: "Yes, I trust this folder"; claude keeps this answer in /home/u/.claude.json';

  test("a log line, as spawn's stderr line", () => {
    expect(renderEventLine(dialog)).toBe(`12:00:02 ${line}\n`);
  });

  test("the live view keeps it under the steps", () => {
    let model: LiveModel = { runId: "", rows: [] };
    model = applyEvent(model, start, 0);
    model = applyEvent(model, dialog, 100);
    expect(renderLive(model, 200).split("\n").slice(-2)).toEqual([line, ""]);
  });

  test("MCP progress says it", () => {
    const progress = createRunProgress();
    progress(start);
    expect(progress(dialog)?.message).toContain("answered claude's trust dialog for /src/app");
  });
});
