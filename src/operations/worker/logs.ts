import { FAILOVER_LOG_FILE, failoverLogEntries, parseFailoverLog } from "../../core/accounts/failover.ts";
import { guardLogEntries } from "../../core/guard/record.ts";
import type { Deps } from "../../core/ports.ts";
import type { HookEvent } from "../../core/providers/types.ts";
import type { LogsInput } from "../../core/schemas.ts";
import { parseEvents } from "../../core/worker/events.ts";
import { checkLiveness, loadWorker } from "./worker.ts";

/**
 * The worker's events (hook payloads and the wrapper's exit record) in order, with what umbel's
 * guardrails did in between (`umbel:structured`, `umbel:check`, `umbel:feedback`, each at the place
 * in the log where it ran), after `umbel:placement` (how `--account auto` chose the account), and
 * each move to another account (`umbel:failover`, before the turn it continued). With `follow`,
 * keeps delivering new ones until the worker is gone or the signal aborts.
 */
export async function streamLogs(
  deps: Deps,
  input: LogsInput,
  emit: (event: HookEvent) => void,
): Promise<number> {
  const worker = await loadWorker(deps, input.name);
  // How --account auto chose the account, before anything the worker did.
  const { placement } = worker.meta;
  if (placement)
    emit({ index: 0, name: "umbel:placement", payload: { summary: placement.reason, ...placement } });
  let seen = 0;
  const shown = new Set<string>();
  const drain = async () => {
    const events = parseEvents(worker.provider, await deps.store.readHooksLog(input.name), seen);
    const moves = failoverLogEntries(
      parseFailoverLog(await deps.store.readWorkerFile(input.name, FAILOVER_LOG_FILE)),
    );
    const checks = [...guardLogEntries(await deps.guards.list(input.name)), ...moves].filter(
      (e) => !shown.has(e.key),
    );
    const merged: HookEvent[] = [...events];
    for (const entry of checks) {
      shown.add(entry.key);
      // Before the hook event of the same index (it came after the check), after the ones before it.
      const at = merged.findIndex((e) => e.index >= entry.index && !e.name.startsWith("umbel:"));
      const line = { index: entry.index, name: entry.name, payload: entry.payload };
      if (at < 0) merged.push(line);
      else merged.splice(at, 0, line);
    }
    for (const event of merged) emit(event);
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
