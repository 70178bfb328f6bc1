import { AbortedError, SpawnFailedError } from "../../core/errors.ts";
import type { Deps, Lock, Waker } from "../../core/ports.ts";
import { parseMaxStarting } from "../../core/spawn/boot-slots.ts";

/** The safety net of the wait for a slot: a slot freed is a file removed, which wakes the waiter. */
const SLOT_POLL_MS = 250;

/**
 * A boot slot of `provider` (UMBEL_MAX_STARTING, core/spawn/boot-slots.ts), waited for up to `timeoutMs`;
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
  const slot = { group: provider, slots: max, timeoutMs, label: `spawn ${name}: boot slot`, name };
  return holdSlot(deps, slot, "spawn was interrupted; the worker was removed", () => {
    throw new SpawnFailedError(
      `${max} other ${provider} workers were still starting after ${timeoutMs} ms (UMBEL_MAX_STARTING=${max})`,
      { name, maxStarting: max },
    );
  });
}

/**
 * One of `slots` slots of `group` under the state root's `starting/` (a lock file each, a dead
 * holder's taken over), waited for up to `timeoutMs`, woken when one is freed; `late` says why not.
 */
export async function holdSlot(
  deps: Deps,
  slot: { group: string; slots: number; timeoutMs: number; label: string; name?: string },
  interrupted: string,
  late: () => never,
): Promise<Lock> {
  const started = deps.clock.now();
  let waker: Waker | null = null;
  try {
    for (;;) {
      const lock = await deps.store.bootSlot(slot.group, slot.slots);
      if (lock) {
        if (waker) deps.trace.mark(`${slot.label} after ${deps.clock.now() - started} ms`);
        return lock;
      }
      if (deps.signal?.aborted) throw new AbortedError(interrupted, slot.name ? { name: slot.name } : {});
      const left = started + slot.timeoutMs - deps.clock.now();
      if (left <= 0) late();
      waker ??= deps.watch.dir(deps.store.bootSlotsDir);
      await waker.next(Math.min(SLOT_POLL_MS, left), deps.signal);
    }
  } finally {
    waker?.close();
  }
}
