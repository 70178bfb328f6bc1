import { formatDuration } from "../../core/common/duration.ts";
import type { WorkflowEvent } from "../../core/workflow/state.ts";
import type { StepStatus } from "../../core/workflow/step-record.ts";
import { renderDialogEvent, STATUS_MARK } from "./render.ts";

type LiveRow = {
  id: string;
  worker: string;
  status: StepStatus;
  /** Local clock, ms: when this process saw the step start and end. */
  startedAt?: number;
  endedAt?: number;
  elapsedMs?: number;
  note?: string;
  earlier?: boolean;
};

/** `notes`: each dialog a worker answered, one line each under the steps (trust is never silent). */
export type LiveModel = { runId: string; rows: LiveRow[]; notes?: string[] };

/** Folds one event into the model (pure). */
export function applyEvent(model: LiveModel, event: WorkflowEvent, now: number): LiveModel {
  if (event.event === "run")
    return {
      runId: event.runId,
      rows: event.steps.map((s) => ({ ...s, ...(s.status === "done" ? { earlier: true } : {}) })),
    };
  if (event.event === "summary") return model;
  if (event.event === "dialog")
    return { ...model, notes: [...(model.notes ?? []), renderDialogEvent(event)] };
  const rows = model.rows.map((row): LiveRow => {
    if (row.id !== event.step) return row;
    const next: LiveRow = { ...row, status: event.status };
    if (event.status === "starting") next.startedAt = now;
    if (event.elapsedMs !== undefined) Object.assign(next, { elapsedMs: event.elapsedMs, endedAt: now });
    if (event.failure) next.note = event.failure.outcome;
    if (event.session) next.note ??= event.session;
    return next;
  });
  return { ...model, rows };
}

/** The frame: one line per step with its state and elapsed time. */
export function renderLive(model: LiveModel, now: number): string {
  const width = Math.max(4, ...model.rows.map((r) => r.id.length));
  const wWidth = Math.max(6, ...model.rows.map((r) => r.worker.length));
  const done = model.rows.filter((r) => r.status === "done").length;
  const lines = [`umbel run ${model.runId} · ${done}/${model.rows.length} done`];
  for (const r of model.rows) {
    const elapsed = r.earlier
      ? "earlier"
      : r.elapsedMs !== undefined
        ? formatDuration(r.elapsedMs)
        : r.startedAt !== undefined
          ? formatDuration(Math.floor((now - r.startedAt) / 1000) * 1000)
          : "";
    const cells = [
      STATUS_MARK[r.status],
      r.id.padEnd(width),
      r.worker.padEnd(wWidth),
      r.status.padEnd(8),
      elapsed.padStart(7),
    ];
    lines.push(`  ${cells.join("  ")}${r.note && r.status !== "done" ? `  ${r.note}` : ""}`);
  }
  lines.push(...(model.notes ?? []));
  return `${lines.join("\n")}\n`;
}

/**
 * Redraws the frame in place (cursor up, clear to the end) on each event and once a second for the
 * clock. The last frame stays on the screen.
 */
export function createLiveView(out: (text: string) => void, columns = 120, now: () => number = Date.now) {
  let model: LiveModel = { runId: "", rows: [] };
  let drawn = 0;
  // A pseudo-terminal without a size reports 0 columns.
  const width = columns >= 20 ? columns : 120;
  const draw = () => {
    if (model.rows.length === 0) return;
    // A wrapped line would break the cursor-up count: cut each line to the terminal's width.
    const frame = renderLive(model, now())
      .split("\n")
      .map((line) => ([...line].length < width ? line : `${[...line].slice(0, width - 2).join("")}…`))
      .join("\n");
    out(`${drawn > 0 ? `\x1b[${drawn}A\r\x1b[J` : ""}${frame}`);
    drawn = frame.split("\n").length - 1;
  };
  const timer = setInterval(draw, 1000);
  return {
    onEvent(event: WorkflowEvent) {
      model = applyEvent(model, event, now());
      draw();
    },
    close() {
      clearInterval(timer);
      draw();
    },
  };
}
