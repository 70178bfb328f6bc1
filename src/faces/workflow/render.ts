import { formatDuration } from "../../core/common/duration.ts";
import type { WorkflowPlan } from "../../core/workflow/describe.ts";
import type { WorkerResume } from "../../core/workflow/resume.ts";
import type { DialogEvent, RunSummary, WorkflowEvent } from "../../core/workflow/state.ts";
import type { StepFailure, StepStatus } from "../../core/workflow/step-record.ts";
import { describeDialog } from "../verbs/render-dialogs.ts";

/** Pure renderers for `umbel run`: the plan, log lines, the summary and a failure's evidence. */

export const STATUS_MARK: Record<StepStatus, string> = {
  pending: "·",
  starting: "…",
  running: "▶",
  done: "✓",
  failed: "✗",
  stopped: "■",
};

export function renderPlan(plan: WorkflowPlan): string {
  const lines: string[] = [
    `plan for ${plan.file}${plan.resume ? ` (resuming run ${plan.resume.runId})` : ""}`,
  ];
  lines.push("workers:");
  for (const [key, w] of Object.entries(plan.workers)) {
    const flags = [
      w.provider,
      w.model,
      w.unattended ? "unattended" : undefined,
      w.permissionMode ? `permissionMode=${w.permissionMode}` : undefined,
      w.env.length > 0 ? `env: ${w.env.join(" ")}` : undefined,
    ].filter(Boolean);
    const where = w.host === undefined ? `in ${w.cwd}` : `on ${w.host} in ${w.cwd}`;
    lines.push(`  ${key}  ${flags.join(" · ")}  ${where}  (steps: ${w.steps.join(", ") || "none"})`);
  }
  plan.waves.forEach((wave, i) => {
    lines.push(`wave ${i + 1}:`);
    for (const s of wave) {
      // A set: a step that needs 10,000 others made includes() quadratic (0.9 s for one line).
      const needs = new Set(s.needs);
      const after = s.waitsFor.filter((d) => !needs.has(d));
      const notes = [
        s.needs.length > 0 ? `needs ${s.needs.join(", ")}` : "",
        after.length > 0 ? `after ${after.join(", ")} on ${s.worker}` : "",
        s.fresh ? "fresh worker" : "",
        s.schema ? "structured output" : "",
        s.accept ? `accept ${s.accept.map((c) => `\`${c}\``).join(", ")}` : "",
        s.reused ? "done earlier: reused" : "",
        Object.keys(s.outputs).length > 0
          ? `outputs ${Object.entries(s.outputs)
              .map(([k, v]) => `${k}=${v}`)
              .join(" ")}`
          : "",
      ].filter(Boolean);
      lines.push(`  ${s.id} on ${s.worker}${notes.length > 0 ? `  (${notes.join("; ")})` : ""}`);
      for (const line of s.prompt.split("\n")) lines.push(`    │ ${line}`);
    }
  });
  return `${lines.join("\n")}\n`;
}

/** One line per event for logs (no TTY): `12:00:03 fix (fixer) failed: timeout after 10m`. */
export function renderEventLine(event: WorkflowEvent): string {
  const time = event.event === "summary" ? "" : `${event.at.slice(11, 19)} `;
  if (event.event === "run")
    return `${time}run ${event.runId} started (attempt ${event.attempt}, ${event.steps.length} steps; state in ${event.stateDir})\n`;
  if (event.event === "summary") return "";
  if (event.event === "dialog") return `${time}${renderDialogEvent(event)}\n`;
  const took = event.elapsedMs === undefined ? "" : ` after ${formatDuration(event.elapsedMs)}`;
  const why = event.failure ? `: ${event.failure.outcome}` : "";
  const where = event.session ? ` [${event.session}]` : "";
  return `${time}${event.step} (${event.worker})${where} ${event.status}${why}${took}\n`;
}

/** A run's dialog, as spawn's stderr line says it (`umbel: <session>: answered …`). */
export function renderDialogEvent(event: DialogEvent): string {
  const { event: _e, runId: _r, at: _a, session, provider, ...answer } = event;
  return `umbel: ${session}: ${describeDialog(provider, answer)}`;
}

/** For stderr, as a resume starts: what it does with each worker that has a step left. */
export function renderResumed(workers: readonly WorkerResume[]): string {
  return workers
    .map((w) => {
      const from = w.session ?? "";
      if (w.how === "kept")
        return `umbel: resume: worker ${w.worker}: ${from} is still running; it goes on${w.continues ? ` with step ${w.continues}'s turn (not sent again)` : ""}\n`;
      if (w.how === "resumed")
        return `umbel: resume: worker ${w.worker}: a new session resumes ${from}'s conversation (${w.providerSession})\n`;
      return `umbel: resume: worker ${w.worker}: a new conversation (${w.why ?? "nothing to resume"})\n`;
    })
    .join("");
}

export function renderSummary(summary: RunSummary): string {
  const counts = Object.values(summary.steps);
  const done = counts.filter((s) => s === "done").length;
  const head = `run ${summary.runId} ${summary.status}: ${done}/${counts.length} steps done in ${formatDuration(summary.elapsedMs)}`;
  const lines = [summary.exitCode === 0 ? head : `${head} (exit ${summary.exitCode})`];
  if (summary.status !== "done") lines.push(`resume with: umbel run --resume ${summary.runId}`);
  lines.push(`state: ${summary.stateDir}`);
  return `${lines.join("\n")}\n${renderFinalOutputs(summary)}`;
}

/** What the run was for, after its summary: each final answer in full, each file by its path. */
function renderFinalOutputs(summary: RunSummary): string {
  return (summary.final ?? [])
    .map((f) => {
      const name = `${f.step}.${f.output}`;
      if (f.kind === "file") return `\n${name}: ${f.path}\n`;
      const text = summary.outputs[f.step]?.[f.output] ?? "";
      return `\n${name}:\n${text}${text.endsWith("\n") || text === "" ? "" : "\n"}`;
    })
    .join("");
}

/** For stderr: the step, its worker, the outcome and the evidence a person needs to act on it. */
export function renderFailure(failure: StepFailure): string {
  const lines = [
    `umbel: step ${failure.step} failed on worker ${failure.worker}${failure.session ? ` (${failure.session})` : ""}: ${failure.outcome} (exit ${failure.exitCode})`,
    `  ${failure.message}`,
  ];
  const e = failure.evidence;
  for (const key of ["error", "prompt", "detail", "path"] as const) {
    if (typeof e[key] === "string" && e[key] !== "" && !failure.message.includes(e[key] as string))
      lines.push(`  ${key}: ${e[key]}`);
  }
  if (typeof e.screen === "string" && e.screen.trim() !== "") {
    lines.push("  last screen:");
    for (const line of e.screen.split("\n").slice(-12)) lines.push(`    │ ${line}`);
  }
  return `${lines.join("\n")}\n`;
}

/**
 * For MCP progress notifications (umbel_run): `progress` counts transitions, so it always grows, as
 * the spec requires; the message says how far the run is and what just changed.
 */
export function createRunProgress(): (event: WorkflowEvent) => { progress: number; message: string } | null {
  let seen = 0;
  let total = 0;
  const finished = new Set<string>();
  return (event) => {
    if (event.event === "summary") return null;
    if (event.event === "run") {
      total = event.steps.length;
      for (const s of event.steps) if (s.status === "done") finished.add(s.id);
    } else if (
      event.event === "step" &&
      (event.status === "done" || event.status === "failed" || event.status === "stopped")
    )
      finished.add(event.step);
    seen++;
    return {
      progress: seen,
      message: `${finished.size}/${total} steps finished · ${renderEventLine(event).trim()}`,
    };
  };
}
