import { z } from "zod";
import type { StepRecord } from "./step-record.ts";

/**
 * `umbel run --resume`: what becomes of each worker the run made (docs/workflows.md). A worker
 * whose tmux still runs is kept, and the step whose turn it was is continued (waited on from its
 * baseline, never sent again: a turn that stopped on a prompt a person has answered since goes on
 * to its end); one whose tmux is gone resumes its CLI's recorded session in a new worker (claude
 * --resume, codex resume, gemini --resume, opencode --session); one with no conversation to resume,
 * or whose next step is `fresh`, starts fresh.
 */

export const WorkerResume = z
  .object({
    worker: z.string().describe("The worker (a key of `workers`)"),
    how: z
      .enum(["kept", "resumed", "fresh"])
      .describe(
        "kept: its session still runs and goes on; resumed: a new session resumes the CLI's recorded conversation; fresh: a new conversation",
      ),
    session: z.string().nullable().describe("The run's session it was (null: the run never spawned one)"),
    continues: z.string().optional().describe("kept: the step whose turn it continues (not sent again)"),
    providerSession: z.string().optional().describe("resumed: the CLI's session id it resumes"),
    why: z.string().optional().describe("fresh: why nothing was resumed"),
  })
  .describe("What a resumed run did with one of its workers");
export type WorkerResume = z.infer<typeof WorkerResume>;

/** One session of the run as the resume found it. */
export type SessionSeen = {
  readonly name: string;
  /** Its tmux session runs a live pane. */
  readonly alive: boolean;
  /** The CLI's own session id (from its hooks or record), when it recorded one. */
  readonly providerSession: string | null;
  /** It took a prompt (a CLI resumes only a conversation that has one). */
  readonly tookPrompt: boolean;
  /** Why its conversation cannot be resumed in a new worker, whatever it recorded. */
  readonly unresumable?: string;
};

export type WorkerResumePlan = {
  /** Every worker with a step left to run, in the order of its first such step. */
  readonly workers: WorkerResume[];
  /** Worker → the live session the run goes on with. */
  readonly kept: Record<string, string>;
  /** Worker → the CLI session its next spawn resumes. */
  readonly resumeFrom: Record<string, string>;
  /** Step → the turn it continues on a kept session. */
  readonly continueTurns: Record<string, { session: string; baseline: number }>;
  /** Live sessions of the run that go (replaced, or no longer needed). */
  readonly kill: string[];
};

export function planWorkerResume(args: {
  readonly steps: readonly {
    readonly id: string;
    readonly run: string;
    readonly fresh?: boolean | undefined;
  }[];
  /** The steps to run, in plan order. */
  readonly rerun: readonly string[];
  readonly records: Readonly<Record<string, StepRecord>>;
  /** Worker → its last session in the run. */
  readonly current: Readonly<Record<string, string>>;
  readonly seen: readonly SessionSeen[];
}): WorkerResumePlan {
  const byId = new Map(args.steps.map((s) => [s.id, s]));
  const seen = new Map(args.seen.map((s) => [s.name, s]));
  const plan: WorkerResumePlan = { workers: [], kept: {}, resumeFrom: {}, continueTurns: {}, kill: [] };
  const decided = new Set<string>();
  for (const id of args.rerun) {
    const step = byId.get(id);
    if (!step || decided.has(step.run)) continue;
    decided.add(step.run);
    const key = step.run;
    const name = args.current[key] ?? null;
    const s = name === null ? undefined : seen.get(name);
    if (name === null || s === undefined) {
      plan.workers.push({ worker: key, how: "fresh", session: name, why: "it had no session yet" });
    } else if (step.fresh) {
      plan.workers.push({ worker: key, how: "fresh", session: name, why: "its next step is fresh" });
    } else if (s.alive) {
      plan.kept[key] = name;
      const record = args.records[id];
      const turn = record?.session === name ? record.baseline : undefined;
      if (turn !== undefined) plan.continueTurns[id] = { session: name, baseline: turn };
      plan.workers.push({
        worker: key,
        how: "kept",
        session: name,
        ...(turn === undefined ? {} : { continues: id }),
      });
    } else if (s.unresumable !== undefined) {
      plan.workers.push({ worker: key, how: "fresh", session: name, why: s.unresumable });
    } else if (s.providerSession !== null && s.tookPrompt) {
      plan.resumeFrom[key] = s.providerSession;
      plan.workers.push({ worker: key, how: "resumed", session: name, providerSession: s.providerSession });
    } else {
      plan.workers.push({
        worker: key,
        how: "fresh",
        session: name,
        why: "its session recorded no conversation",
      });
    }
  }
  const keptNames = new Set(Object.values(plan.kept));
  for (const s of args.seen) if (s.alive && !keptNames.has(s.name)) plan.kill.push(s.name);
  return plan;
}

/**
 * Each worker's last session: the run's record, else (a state written before it kept one) the last
 * session named `<worker>-<run hex>-<n>`.
 */
export function lastSessions(
  workers: readonly string[],
  state: {
    readonly sessions: readonly string[];
    readonly workers?: Readonly<Record<string, string>> | undefined;
  },
  runHex: string,
): Record<string, string> {
  if (state.workers) return { ...state.workers };
  const last: Record<string, string> = {};
  for (const key of workers) {
    const mine = state.sessions.filter((name) => new RegExp(`^${key}-${runHex}-\\d+$`).test(name));
    const found = mine.at(-1);
    if (found !== undefined) last[key] = found;
  }
  return last;
}
