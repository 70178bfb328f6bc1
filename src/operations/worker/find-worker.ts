import type { Deps } from "../../core/ports.ts";
import type { StatusResult } from "../../core/worker/status.ts";
import { listWorkers } from "./status.ts";

/** A live worker that holds this provider session id (`umbel -p --resume <session id>`). */
export async function findWorkerBySession(deps: Deps, sessionId: string): Promise<StatusResult | null> {
  const workers = await listWorkers(deps);
  return workers.find((w) => w.sessionId === sessionId && isLive(w)) ?? null;
}

/**
 * The live worker of this provider in `cwd` that was used last (its events log changed last):
 * "the most recent conversation in the current directory" (`umbel -p --continue`).
 */
export async function findRecentWorker(
  deps: Deps,
  where: { cwd: string; provider: string },
): Promise<StatusResult | null> {
  const candidates = (await listWorkers(deps)).filter(
    (w) => w.cwd === where.cwd && w.provider === where.provider && isLive(w),
  );
  let best: { worker: StatusResult; at: number } | null = null;
  for (const worker of candidates) {
    const at = (await deps.store.eventsChangedAt(worker.name)) ?? 0;
    if (!best || at > best.at) best = { worker, at };
  }
  return best?.worker ?? null;
}

function isLive(w: StatusResult): boolean {
  return w.state !== "dead" && w.state !== "killed" && w.state !== "starting" && w.state !== "broken";
}
