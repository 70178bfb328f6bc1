import { z } from "zod";
import { OutputCut } from "./output-cut.ts";

/** One step of a run as state.json records it (state.ts holds the run around it; resume.ts reads it). */

export const StepStatus = z.enum(["pending", "starting", "running", "done", "failed", "stopped"]);
export type StepStatus = z.infer<typeof StepStatus>;

/** Why a step failed: the wait outcome (input, provider-error, idle, timeout, dead) or an error code. */
export const StepFailure = z.object({
  step: z.string(),
  worker: z.string(),
  session: z.string().nullable(),
  outcome: z.string(),
  exitCode: z.number().int(),
  message: z.string(),
  evidence: z.record(z.string(), z.unknown()),
});
export type StepFailure = z.infer<typeof StepFailure>;

export const StepRecord = z.object({
  status: StepStatus,
  worker: z.string(),
  /** The tmux worker (umbel session name) that ran the step. */
  session: z.string().optional(),
  startedAt: z.string().optional(),
  endedAt: z.string().optional(),
  elapsedMs: z.number().optional(),
  /** Which attempt (1 = the first run, 2 = the first resume …) finished the step. */
  attempt: z.number().int().optional(),
  /** The baseline of the step's turn on its session (a resume that keeps the session continues it). */
  baseline: z.number().int().optional(),
  outputs: z.record(z.string(), z.string()).optional(),
  /** The outputs kept only in part (over OUTPUT_INLINE_BYTES): each one's whole size, sha256, file. */
  cut: z.record(z.string(), OutputCut).optional(),
  failure: StepFailure.optional(),
});
export type StepRecord = z.infer<typeof StepRecord>;
