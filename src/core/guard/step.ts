import type { GuardRecord } from "./record.ts";

/**
 * What the guard loop (operations/guard.ts runGuard) does next, as a pure machine over the guard's
 * record: the driver reads the record, asks, carries the move out, and asks again. Any waiter may
 * drive it (no daemon): the checks and the feedback are done under the guard's lock, the record
 * read again once it is held, since another waiter may have moved it on meanwhile.
 *
 * - `finish`: the guard is done; its final outcome (stop with the answer, or rejected).
 * - `watch`: wait for the attempt's turn to end (`turn`: its baseline); an outcome other than its
 *   stop is the loop's outcome, and the guard stays open.
 * - `lock`: the turn has ended; take the guard's lock to check it or answer it.
 * - `again`: with the lock held, the record says another waiter finished or moved on: look again.
 * - `check`: run the checks of this attempt (ending a check a dead waiter left running first).
 * - `feedback`: the checks failed with attempts left: send the feedback turn.
 */
export type GuardMove =
  | { readonly kind: "finish" }
  | { readonly kind: "watch"; readonly turn: number }
  | { readonly kind: "lock" }
  | { readonly kind: "again" }
  | { readonly kind: "check" }
  | { readonly kind: "feedback" };

type Seen = Pick<GuardRecord, "phase" | "turns" | "baseline">;

/** The attempt's turn: the last one sent, else the guarded turn itself. */
function attemptTurn(record: Pick<GuardRecord, "turns" | "baseline">): number {
  return record.turns.at(-1) ?? record.baseline;
}

/** Before the lock: `waited` is the turn this driver last saw end (null: none yet). */
export function guardMove(record: Seen, waited: number | null): GuardMove {
  if (record.phase === "done") return { kind: "finish" };
  const turn = attemptTurn(record);
  if (record.phase === "turn" && waited !== turn) return { kind: "watch", turn };
  return { kind: "lock" };
}

/** With the lock held, on the record read again. */
export function lockedMove(record: Seen, waited: number | null): GuardMove {
  if (record.phase === "done" || (record.phase === "turn" && record.turns.at(-1) !== waited))
    return { kind: "again" };
  return record.phase === "feedback" ? { kind: "feedback" } : { kind: "check" };
}
