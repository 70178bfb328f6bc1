import { parseMaxStarting } from "../core/boot-slots.ts";
import { AbortedError, SpawnFailedError } from "../core/errors.ts";
import type { Deps, Lock, Waker } from "../core/ports.ts";

/** The safety net of the wait for a slot: a slot freed is a file removed, which wakes the waiter. */
const SLOT_POLL_MS = 250;

/**
 * A boot slot of `provider` (UMBEL_MAX_STARTING, core/boot-slots.ts), waited for up to `timeoutMs`;
 * null when there is no cap. The caller holds it from the tmux session's start until ready.
 */
export async function holdBootSlot(
  deps: Deps,
  provider: string,
  name: string,
  timeoutMs: number,
): Promise<Lock | null> {
  const max = parseMaxStarting(deps.env.UMBEL_MAX_STARTING);
  if (max === null) return null;
  const started = deps.clock.now();
  let waker: Waker | null = null;
  try {
    for (;;) {
      const slot = await deps.store.bootSlot(provider, max);
      if (slot) {
        if (waker) deps.trace.mark(`spawn ${name}: boot slot after ${deps.clock.now() - started} ms`);
        return slot;
      }
      if (deps.signal?.aborted)
        throw new AbortedError("spawn was interrupted; the worker was removed", { name });
      const left = started + timeoutMs - deps.clock.now();
      if (left <= 0)
        throw new SpawnFailedError(
          `${max} other ${provider} workers were still starting after ${timeoutMs} ms (UMBEL_MAX_STARTING=${max})`,
          { name, maxStarting: max },
        );
      waker ??= deps.watch.dir(deps.store.bootSlotsDir);
      await waker.next(Math.min(SLOT_POLL_MS, left), deps.signal);
    }
  } finally {
    waker?.close();
  }
}
