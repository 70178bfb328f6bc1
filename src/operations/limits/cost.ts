import { join } from "node:path";
import { STATUS_LINE_FILE } from "../../core/limits/telemetry.ts";
import type { Deps } from "../../core/ports.ts";
import type { Provider } from "../../core/providers/types.ts";

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
 * claude redraws its statusline (and so rewrites the JSON) after each message, the last one ~0.4 s
 * after the Stop hook (2.1.332, measured through umbel): the cost after a turn is the JSON's next
 * version, or the one there this long after the turn ended.
 */
const SETTLE_MS = 800;

/**
 * claude writes its first statusline JSON as it draws its first screen (2.1.332: there when spawn
 * returns), and its startup requests (a subscriber's 1-token "quota" probe) cost something: the
 * run's cost counts from that JSON. A worker started on a loaded machine may need a moment.
 */
const FIRST_MS = 2000;

/** The session's cost before a run (waiting up to FIRST_MS for claude's first statusline JSON). */
export async function startingCost(deps: Deps, provider: Provider, name: string): Promise<number | null> {
  if (!provider.costRecord) return null;
  const until = deps.clock.now() + FIRST_MS;
  for (;;) {
    const text = await readStatusLine(deps, name);
    if (text !== null || deps.clock.now() >= until || deps.signal?.aborted)
      return costOfStatusLine(provider, text);
    await deps.clock.sleep(100, deps.signal);
  }
}

/**
 * The cost once the statusline has caught up with the turn that ended at `endedAt`, when the JSON
 * was `atEnd`: its next version, or what is there SETTLE_MS after the end.
 */
export async function settledCost(
  deps: Deps,
  provider: Provider,
  name: string,
  atEnd: { readonly text: string | null; readonly at: number },
): Promise<number | null> {
  if (!provider.costRecord) return null;
  const first = atEnd.text;
  const waker = deps.watch.dir(deps.store.paths(name).events);
  try {
    const now0 = await readStatusLine(deps, name);
    if (now0 !== null && now0 !== first) return costOfStatusLine(provider, now0);
    const until = atEnd.at + SETTLE_MS;
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
