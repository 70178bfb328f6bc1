import { z } from "zod";
import type { HookEvent, Provider } from "../providers/types.ts";

/**
 * What a guarded turn leaves in the worker's state dir (`sessions/<name>/guards/<baseline>.json`):
 * the guardrails as sent, the turns of every attempt, and what each check found. Whichever process
 * waits for the turn reads it, runs the checks it owes (under a lock) and writes it back, so two
 * waiters run each check once and agree on the outcome.
 */

export const CheckRun = z.object({
  command: z.string().describe("The accept check as given"),
  exitCode: z.number().int().nullable().describe("Its exit status (null: it timed out or a signal ended it)"),
  signal: z.string().nullable().describe("The signal that ended it, if one did"),
  timedOut: z.boolean().describe("It ran past --accept-timeout and was killed"),
  durationMs: z.number().describe("How long it ran"),
  output: z.string().describe("The last 4 KB of its output (stdout and stderr as they interleaved)"),
  outputBytes: z.number().int().optional().describe("How many bytes it printed in all"),
  cutBytes: z
    .number()
    .int()
    .optional()
    .describe("Bytes cut from the middle of its log (present when it printed more than the log keeps)"),
});
export type CheckRun = z.infer<typeof CheckRun>;

export const StructuredCheck = z.object({
  ok: z.boolean().describe("The turn called StructuredOutput with an object that matches the schema"),
  calls: z.number().int().describe("StructuredOutput calls in the turn"),
  rejected: z.number().int().describe("Calls whose object did not match the schema"),
  errors: z.array(z.string()).describe("The validation errors of the last rejected call"),
});
export type StructuredCheck = z.infer<typeof StructuredCheck>;

export const Attempt = z.object({
  attempt: z.number().int().describe("1 is the turn that was sent; each later one followed feedback"),
  baseline: z.number().int().describe("The baseline of this attempt's turn"),
  at: z.number().int().describe("Events in the worker's log when it was checked (where logs shows it)"),
  passed: z.boolean().describe("Every guardrail held"),
  structured: StructuredCheck.optional().describe(
    "What the turn returned through StructuredOutput (--json-schema)",
  ),
  checks: z.array(CheckRun).describe("The accept checks run, in order, up to the first that failed"),
  feedback: z.string().optional().describe("What umbel sent the worker for the next attempt"),
});
export type Attempt = z.infer<typeof Attempt>;

export const GuardPhase = z.enum(["turn", "checking", "feedback", "done"]);
export type GuardPhase = z.infer<typeof GuardPhase>;

export const GuardRecord = z.object({
  version: z.literal(1),
  baseline: z.number().int(),
  jsonSchema: z.record(z.string(), z.unknown()).optional(),
  accept: z.array(z.string()),
  maxAttempts: z.number().int(),
  acceptTimeoutMs: z.number(),
  /** The baseline of each attempt's turn, the sent one first. */
  turns: z.array(z.number().int()),
  attempts: z.array(Attempt),
  phase: GuardPhase,
  /** claude's enforce message went out (it is sent once per guard, as claude -p does). */
  enforced: z.boolean(),
  /** How it ended, once phase is done. */
  final: z.object({ reason: z.enum(["stop", "rejected"]), detail: z.string().optional() }).optional(),
  /**
   * The accept check running now (while phase is checking): its process, which leads its own group,
   * so that a waiter taking over from one that died ends it before running that check again.
   */
  running: z
    .object({
      attempt: z.number().int(),
      check: z.number().int(),
      pid: z.number().int(),
      start: z.string().nullable(),
    })
    .optional(),
  createdAt: z.string(),
});
export type GuardRecord = z.infer<typeof GuardRecord>;

/** `sessions/<name>/turn-schema.json`: the schema of the turn in flight (null: none), for the tool. */
export const TurnSchema = z.object({
  baseline: z.number().int(),
  schema: z.record(z.string(), z.unknown()).nullable(),
});
export type TurnSchema = z.infer<typeof TurnSchema>;

/** One StructuredOutput call, appended to `events/structured.jsonl` by the tool. */
export const StructuredEntry = z.object({
  baseline: z.number().int(),
  ok: z.boolean(),
  object: z.unknown().optional(),
  errors: z.array(z.string()).optional(),
});
export type StructuredEntry = z.infer<typeof StructuredEntry>;

/** The guard a turn belongs to: the one whose turns include this baseline, or null. */
export function findGuard(records: readonly GuardRecord[], baseline: number): GuardRecord | null {
  return records.find((r) => r.turns.includes(baseline)) ?? null;
}

/**
 * The guard of the turn whose prompt is the human submit event at `submit` (what wait and status
 * take when no baseline is given). A turn sent at baseline t is the first submit at or after t: the
 * two differ when hooks fire before it (codex's SessionStart comes with the first prompt).
 */
export function guardOfSubmit(
  records: readonly GuardRecord[],
  provider: Pick<Provider, "interpretEvent">,
  events: readonly HookEvent[],
  submit: number,
): { guard: GuardRecord; baseline: number } | null {
  const submits = events.flatMap((event) => {
    const signal = provider.interpretEvent(event);
    return signal.kind === "submitted" && signal.human ? [event.index] : [];
  });
  for (const guard of records)
    for (const baseline of guard.turns)
      if (submits.find((index) => index >= baseline) === submit) return { guard, baseline };
  return null;
}

/** The turn's StructuredOutput calls: the last accepted object (undefined: none) and the rejections. */
export function structuredOf(
  entries: readonly StructuredEntry[],
  baseline: number,
): { found: boolean; object: unknown; calls: number; rejected: number; errors: string[] } {
  const mine = entries.filter((e) => e.baseline === baseline);
  const accepted = mine.findLast((e) => e.ok);
  const rejections = mine.filter((e) => !e.ok);
  return {
    found: accepted !== undefined,
    object: accepted?.object,
    calls: mine.length,
    rejected: rejections.length,
    errors: rejections.at(-1)?.errors ?? [],
  };
}

/** `status`'s line for a guard that has not finished: `attempt 2/3, checking`. */
export function describeGuard(g: { attempt: number; maxAttempts: number; phase: GuardPhase }): string {
  const phase = { turn: "on its turn", checking: "checking", feedback: "sending feedback", done: "done" };
  return `attempt ${g.attempt}/${g.maxAttempts}, ${phase[g.phase]}`;
}

/** One line of `logs` that umbel itself adds: what a guard's check found, at its place in the log. */
export type GuardLogEntry = {
  readonly key: string;
  /** Events in the log when it happened: it is shown before the event of this index. */
  readonly index: number;
  readonly name: "umbel:structured" | "umbel:check" | "umbel:feedback";
  readonly payload: Record<string, unknown> & { summary: string };
};

/** Every check of every guard as log lines: the StructuredOutput verdict, each accept check, feedback. */
export function guardLogEntries(records: readonly GuardRecord[]): GuardLogEntry[] {
  const entries: GuardLogEntry[] = [];
  for (const record of records) {
    for (const a of record.attempts) {
      const key = `${record.baseline}.${a.attempt}`;
      const where = { guard: record.baseline, attempt: a.attempt, baseline: a.baseline };
      if (a.structured) {
        const s = a.structured;
        const summary = s.ok
          ? `attempt ${a.attempt}: StructuredOutput accepted`
          : `attempt ${a.attempt}: no valid StructuredOutput (${s.calls} calls, ${s.rejected} rejected)`;
        entries.push({
          key: `${key}.s`,
          index: a.at,
          name: "umbel:structured",
          payload: { ...where, ...s, summary },
        });
      }
      a.checks.forEach((c, i) => {
        const status = c.timedOut
          ? "timed out"
          : c.exitCode !== null
            ? `exit ${c.exitCode}`
            : `signal ${c.signal}`;
        const summary = `attempt ${a.attempt}: ${c.command} → ${status} in ${(c.durationMs / 1000).toFixed(1)}s`;
        entries.push({
          key: `${key}.c${i}`,
          index: a.at,
          name: "umbel:check",
          payload: { ...where, ...c, summary },
        });
      });
      if (a.feedback !== undefined) {
        const summary = `attempt ${a.attempt}: feedback sent for attempt ${a.attempt + 1}`;
        entries.push({
          key: `${key}.f`,
          index: a.at,
          name: "umbel:feedback",
          payload: { ...where, text: a.feedback, summary },
        });
      }
    }
  }
  return entries;
}
