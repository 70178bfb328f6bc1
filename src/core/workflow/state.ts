import { z } from "zod";
import type { DialogAnswer } from "../worker/outputs.ts";
import type { FinalOutput } from "./final.ts";
import type { WorkerResume } from "./resume.ts";
import { RunId } from "./schema.ts";
import { StepFailure, StepRecord, type StepStatus } from "./step-record.ts";

/**
 * What a run records in $UMBEL_HOME/workflows/<run-id>/state.json, and the events it reports while
 * it goes. One shape for both: an event is a step's record at the moment it changed.
 */

const RunStatus = z.enum(["running", "done", "failed", "interrupted"]);
type RunStatus = z.infer<typeof RunStatus>;

export const RunState = z.object({
  version: z.literal(1),
  runId: RunId,
  /** The workflow file as given, and the folder relative worker cwds resolve against. */
  file: z.string(),
  baseDir: z.string(),
  status: RunStatus,
  attempt: z.number().int().positive(),
  pid: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  /** Every worker session this run created (a resume keeps or resumes each worker's last one). */
  sessions: z.array(z.string()),
  /** Each worker's last session (older runs: read from the session names). */
  workers: z.record(z.string(), z.string()).optional(),
  steps: z.record(z.string(), StepRecord),
  failure: StepFailure.optional(),
});
export type RunState = z.infer<typeof RunState>;

export type StepEvent = { event: "step"; runId: string; step: string; at: string } & StepRecord;

type RunStartEvent = {
  event: "run";
  runId: string;
  file: string;
  stateDir: string;
  attempt: number;
  at: string;
  steps: { id: string; worker: string; status: StepStatus }[];
  /** A resume: what it did with each worker that has a step left (kept, resumed, fresh). */
  resumed?: WorkerResume[];
};

export type RunSummary = {
  event: "summary";
  /** Tells a summary from a plan (WorkflowPlan has dryRun: true). */
  dryRun: false;
  runId: string;
  status: Exclude<RunStatus, "running">;
  /** 0 when every step finished; the failing outcome's code (122-126, 1 …); 130 when interrupted. */
  exitCode: number;
  elapsedMs: number;
  stateDir: string;
  attempt: number;
  steps: Record<string, StepStatus>;
  outputs: Record<string, Record<string, string>>;
  /** A finished run: the final steps' outputs, in file order (what the text view prints). */
  final?: FinalOutput[];
  /** A finished run without `keep`: the worker sessions it removed (a failed run keeps them). */
  purged?: string[];
  /** A resume: what it did with each worker that had a step left. */
  resumed?: WorkerResume[];
  /** Sessions left running: a step that ended waiting for a person (answer it, then --resume). */
  waiting?: string[];
  failure?: StepFailure;
  /** Every startup dialog this attempt's workers answered (also a `dialog` event each). */
  dialogs?: Omit<DialogEvent, "event" | "runId" | "at">[];
};

/** A startup dialog a run's worker answered as it was spawned (said as spawn says it). */
export type DialogEvent = {
  event: "dialog";
  runId: string;
  at: string;
  /** The worker session that answered it, and its CLI. */
  session: string;
  provider: string;
} & DialogAnswer;

export type WorkflowEvent = RunStartEvent | StepEvent | DialogEvent | RunSummary;

export type ResumePlan = {
  /** Steps finished earlier, with their outputs: not run again. */
  reused: Record<string, Record<string, string>>;
  /** Steps to run, in plan order. */
  rerun: string[];
};

/**
 * Which steps a resume runs again: every step that is not done, and a done step whose recorded
 * outputs lack one the file declares (a state written by hand or by an older umbel).
 */
export function planResume(
  order: readonly string[],
  declared: Readonly<Record<string, readonly string[]>>,
  state: Pick<RunState, "steps">,
): ResumePlan {
  const reused: Record<string, Record<string, string>> = {};
  const rerun: string[] = [];
  for (const id of order) {
    const record = state.steps[id];
    const outputs = record?.outputs ?? {};
    const complete = (declared[id] ?? []).every((key) => key in outputs);
    if (record?.status === "done" && complete) reused[id] = outputs;
    else rerun.push(id);
  }
  return { reused, rerun };
}
