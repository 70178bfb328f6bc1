import type { Clock } from "../../core/ports.ts";

/** What a call came back with when it did not answer by its bound. */
export const LATE: unique symbol = Symbol("late");

/**
 * The promise's value, or LATE when the clock reaches `bound` first (the promise is abandoned; a
 * later rejection is swallowed). A hung tmux never stretches a deadline this way.
 */
export async function bounded<T>(clock: Clock, bound: number, promise: Promise<T>): Promise<T | typeof LATE> {
  const stop = new AbortController();
  promise.catch(() => undefined);
  const late = clock.sleep(Math.max(0, bound - clock.now()), stop.signal).then((): typeof LATE => LATE);
  try {
    return await Promise.race([promise, late]);
  } finally {
    stop.abort();
  }
}
