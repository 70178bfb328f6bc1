import { join } from "node:path";
import type { Deps } from "../core/ports.ts";
import type { Provider } from "../core/providers/types.ts";
import { STATUS_LINE_FILE } from "../core/telemetry.ts";

/**
 * The session's cost as the provider records it (claude's statusline JSON, kept by
 * hooks/statusline.sh in the worker's events dir), for `-p`'s total_cost_usd and --max-budget-usd.
 */
export async function readStatusLine(deps: Deps, name: string): Promise<string | null> {
  return deps.files.readText(join(deps.store.paths(name).events, STATUS_LINE_FILE));
}

export function costOfStatusLine(provider: Provider, statusLine: string | null): number | null {
  if (statusLine === null || !provider.readTelemetry || !provider.costRecord) return null;
  return provider.readTelemetry({ transcript: null, statusLine }).costUsd;
}

/**
 * claude redraws its statusline (and so rewrites the JSON) ~300 ms after a message, which can be
 * after the Stop hook: the cost after a turn is the JSON's next version, or the one there after this.
 */
const SETTLE_MS = 800;

/** The cost once the statusline has caught up with the turn that just ended (bounded by SETTLE_MS). */
export async function settledCost(deps: Deps, provider: Provider, name: string): Promise<number | null> {
  if (!provider.costRecord) return null;
  const first = await readStatusLine(deps, name);
  const waker = deps.watch.dir(deps.store.paths(name).events);
  try {
    const until = deps.clock.now() + SETTLE_MS;
    let now = deps.clock.now();
    while (now < until && !deps.signal?.aborted) {
      await waker.next(until - now, deps.signal);
      const text = await readStatusLine(deps, name);
      if (text !== null && text !== first) return costOfStatusLine(provider, text);
      now = deps.clock.now();
    }
  } finally {
    waker.close();
  }
  return costOfStatusLine(provider, first);
}
