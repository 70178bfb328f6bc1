import { WorkerBusyError } from "../../core/errors.ts";
import { describeGuard, type GuardRecord, guardOfSubmit } from "../../core/guard/record.ts";
import type { Deps } from "../../core/ports.ts";
import { lastTurn, type WorkerView } from "../worker/view.ts";

/**
 * The guard of the worker's last turn while it is still open: its checks or its feedback turn are
 * still to come (between attempts the worker sits idle, waiting for its loop). null when there is
 * none, it is done, or its attempt's turn ended in failure (a provider error, a usage limit: no
 * check runs on such a turn, so the guarded turn has ended; a later wait reports it again).
 */
export async function openGuard(deps: Deps, view: WorkerView): Promise<GuardRecord | null> {
  const records = await deps.guards.list(view.meta.name);
  if (records.every((r) => r.phase === "done")) return null;
  if (view.lastSubmit === null) return null;
  const guard = guardOfSubmit(records, view.provider, view.events, view.lastSubmit)?.guard;
  if (guard === undefined || guard.phase === "done") return null;
  if (guard.phase === "turn" && (await lastTurn(deps, view))?.status === "failure") return null;
  return guard;
}

/**
 * A caller's send to a worker whose guarded turn is open is refused busy (4), typing nothing: a
 * prompt typed between a failed check and its feedback turn (2 of 2) left the next attempt to be
 * checked on the state that prompt's turn left. Only the guard's own loop goes on with the worker.
 */
export async function refuseOpenGuard(deps: Deps, view: WorkerView): Promise<void> {
  const guard = await openGuard(deps, view);
  if (guard === null) return;
  const { name } = view.meta;
  const where = describeGuard({
    attempt: Math.max(1, guard.turns.length),
    maxAttempts: guard.maxAttempts,
    phase: guard.phase,
  });
  throw new WorkerBusyError(
    `worker ${name} is on a guarded turn (${where}) whose loop sends its next prompt; wait for its outcome (umbel wait ${name}), or send --queue`,
    { name, guard: { baseline: guard.baseline, attempt: guard.turns.length, phase: guard.phase } },
  );
}
