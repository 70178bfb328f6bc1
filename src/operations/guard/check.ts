import { checkPassed, decideAttempt } from "../../core/guard/decide.ts";
import {
  type Attempt,
  type CheckRun,
  type GuardRecord,
  type StructuredCheck,
  structuredOf,
} from "../../core/guard/record.ts";
import type { Deps } from "../../core/ports.ts";
import { countEvents } from "../../core/worker/events.ts";
import { readAnswer } from "../worker/read.ts";
import type { Worker } from "../worker/worker.ts";
import { turnStructured } from "./turn-structured.ts";

export type AttemptFindings = {
  structured?: StructuredCheck;
  /** The accepted object (when the guard has a schema and the turn returned one). */
  object?: unknown;
  checks: CheckRun[];
  /** The caller aborted (SIGINT, MCP cancel) or the wait's deadline cut a check short. */
  cut: "aborted" | "timeout" | null;
};

/**
 * Checks the turn of the record's current attempt: its StructuredOutput object first (an attempt
 * without a valid one runs no accept check: the answer is not final), then each accept check in
 * order, up to the first that fails. A check is `sh -c` in the worker's cwd with the caller's
 * environment plus UMBEL_WORKER, UMBEL_ATTEMPT and UMBEL_ANSWER_FILE, bounded by --accept-timeout
 * and by the wait's own deadline.
 */
async function checkAttempt(
  deps: Deps,
  worker: Worker,
  record: GuardRecord,
  deadline: number,
): Promise<AttemptFindings> {
  const { name } = worker.meta;
  const turn = record.turns.at(-1) ?? record.baseline;
  const attempt = record.turns.length;
  const findings: AttemptFindings = { checks: [], cut: null };
  let answer: string | null = null;
  if (record.jsonSchema) {
    const s = structuredOf(await turnStructured(deps, worker, turn), turn);
    findings.structured = { ok: s.found, calls: s.calls, rejected: s.rejected, errors: s.errors };
    if (!s.found) return findings;
    findings.object = s.object;
    answer = JSON.stringify(s.object);
  }
  if (record.accept.length === 0) return findings;
  answer ??= (await readAnswer(deps, { name, after: turn })).text;
  const answerName = `${record.baseline}-${attempt}.answer`;
  const answerFile = deps.guards.path(name, answerName);
  // guards/ is umbel's own: writeFile refuses a link planted there, which would take the answer file
  // and the check logs elsewhere.
  await deps.guards.writeFile(name, answerName, answer);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(deps.env)) if (value !== undefined) env[key] = value;
  Object.assign(env, { UMBEL_WORKER: name, UMBEL_ATTEMPT: String(attempt), UMBEL_ANSWER_FILE: answerFile });
  for (const [i, command] of record.accept.entries()) {
    const left = deadline - deps.clock.now();
    if (left <= 0) return { ...findings, cut: "timeout" };
    const run = await deps.checks.run(command, {
      cwd: worker.meta.cwd,
      env,
      timeoutMs: Math.min(record.acceptTimeoutMs, left),
      logPath: deps.guards.path(name, `${record.baseline}-${attempt}-${i + 1}.log`),
      signal: deps.signal,
      // Recorded while it runs: a waiter that takes over from this one, if it dies, ends it first.
      onStart: (proc) =>
        deps.guards.write(name, {
          ...record,
          running: { attempt, check: i + 1, pid: proc.pid, start: proc.start },
        }),
    });
    if (deps.signal?.aborted) return { ...findings, cut: "aborted" };
    // Cut by the wait's deadline, not by its own --accept-timeout: the verdict is not in yet.
    if (run.timedOut && left < record.acceptTimeoutMs) return { ...findings, cut: "timeout" };
    findings.checks.push(run);
    if (!checkPassed(run)) break;
  }
  return findings;
}

/**
 * Checks the record's current attempt and records it: done (pass or rejected) or feedback (the next
 * attempt's prompt is in the attempt). A check cut short (abort, the wait's deadline) records
 * nothing: the phase stays "checking", and a later wait runs it again.
 */
export async function checkStep(
  deps: Deps,
  worker: Worker,
  record: GuardRecord,
  deadline: number,
): Promise<{ record: GuardRecord } | { cut: "aborted" | "timeout" }> {
  const findings = await checkAttempt(deps, worker, record, deadline);
  if (findings.cut) return { cut: findings.cut };
  const verdict = decideAttempt(record, findings);
  const attempt: Attempt = {
    attempt: record.turns.length,
    baseline: record.turns.at(-1) ?? record.baseline,
    at: countEvents(await deps.store.readHooksLog(worker.meta.name)),
    passed: verdict.kind === "pass",
    ...(findings.structured ? { structured: findings.structured } : {}),
    checks: findings.checks,
    ...(verdict.kind === "retry" ? { feedback: verdict.feedback } : {}),
  };
  const attempts = [...record.attempts, attempt];
  const { running: _running, ...checked } = record;
  const next: GuardRecord =
    verdict.kind === "retry"
      ? { ...checked, attempts, phase: "feedback", enforced: record.enforced || verdict.enforce }
      : {
          ...checked,
          attempts,
          phase: "done",
          final:
            verdict.kind === "pass" ? { reason: "stop" } : { reason: "rejected", detail: verdict.detail },
        };
  await deps.guards.write(worker.meta.name, next);
  return { record: next };
}
