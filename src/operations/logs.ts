import { parseEvents } from "../core/events.ts";
import type { Deps } from "../core/ports.ts";
import type { HookEvent } from "../core/providers/types.ts";
import type { LogsInput } from "../core/schemas.ts";
import { checkLiveness, loadWorker } from "./worker.ts";

/**
 * The worker's events (hook payloads and the wrapper's exit record) in order. With `follow`, keeps
 * delivering new ones until the worker is gone or the signal aborts.
 */
export async function streamLogs(
  deps: Deps,
  input: LogsInput,
  emit: (event: HookEvent) => void,
): Promise<number> {
  const worker = await loadWorker(deps, input.name);
  let seen = 0;
  const drain = async () => {
    const events = parseEvents(worker.provider, await deps.store.readHooksLog(input.name), seen);
    for (const event of events) emit(event);
    seen += events.length;
  };
  await drain();
  if (!input.follow) return seen;
  const waker = deps.watch.dir(deps.store.paths(input.name).events);
  try {
    while (!deps.signal?.aborted) {
      await waker.next(1000, deps.signal);
      await drain();
      const live = await checkLiveness(deps, worker);
      if (!live.alive) break;
    }
  } finally {
    waker.close();
  }
  await drain();
  return seen;
}
