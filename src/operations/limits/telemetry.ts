import type { Telemetry, TelemetryRecords } from "../../core/limits/telemetry.ts";
import type { Deps } from "../../core/ports.ts";
import type { HookEvent } from "../../core/providers/types.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { findRecordSource } from "../../core/wait/turn.ts";
import { noteWindows } from "../accounts/record.ts";
import { loadWorker, readEvents, type Worker } from "../worker/worker.ts";
import { readStatusLine } from "./cost.ts";

/** The provider's own records of tokens, cost and windows; a worker with no transcript yet has none. */
export async function telemetryOf(
  deps: Deps,
  worker: Worker,
  events: readonly HookEvent[],
): Promise<Telemetry | null> {
  const records = await readRecords(deps, worker, events);
  return records === null ? null : readFrom(deps, worker, records);
}

/**
 * How long a turn's records may take to hold its numbers once it ended: claude rewrites its
 * statusline ~0.4 s after Stop (2.1.332, measured on the stub; 0.36 s with load 20 on 2 cores).
 */
const SETTLE_MS = 2000;
/** While settling, a look this often besides the wake-ups (the transcript is outside events/). */
const LOOK_MS = 100;

const ENDED: ReadonlySet<Outcome["reason"]> = new Set(["stop", "rejected", "provider-error", "limited"]);

/**
 * The outcome with the worker's telemetry as `status` would show it next, once the records hold the
 * turn's own numbers: a turn that ended waits (up to SETTLE_MS, woken by the statusline's rename in
 * events/) until the provider says its records are this turn's; a provider that needs no settling
 * and a turn that did not end (input, timeout, …) take what is there now.
 */
export async function withTurnTelemetry(
  deps: Deps,
  outcome: Outcome,
  /** The worker as the verb read it (once), else read here. */
  loaded?: Worker,
): Promise<Outcome> {
  const worker = loaded ?? (await loadWorker(deps, outcome.name));
  const { provider } = worker;
  if (!provider.readTelemetry) return { ...outcome, telemetry: null };
  // A turn ended without its end-of-turn hook (an Escape) is not waited for: nothing says when
  // its records are done.
  const ended = ENDED.has(outcome.reason) && outcome.evidence.interrupted !== true;
  const settles = ended ? provider.turnTelemetrySettled : undefined;
  const promptId = outcome.evidence.promptId ?? null;
  const began = deps.clock.now();
  const until = began + SETTLE_MS;
  const waker = settles ? deps.watch.dir(deps.store.paths(worker.meta.name).events) : null;
  try {
    for (;;) {
      const records = await readRecords(deps, worker, await readEvents(deps, provider, worker.meta.name));
      const settled = ended && (!settles || (records !== null && settles(records, promptId)));
      const now = deps.clock.now();
      if (!waker || settled || now >= until || deps.signal?.aborted) {
        const telemetry = records === null ? null : await readFrom(deps, worker, records);
        const elapsedMs = outcome.elapsedMs + (now - began);
        return { ...outcome, elapsedMs, telemetry: telemetry && { ...telemetry, settled } };
      }
      await waker.next(Math.min(LOOK_MS, until - now), deps.signal);
    }
  } finally {
    waker?.close();
  }
}

async function readRecords(
  deps: Deps,
  worker: Worker,
  events: readonly HookEvent[],
): Promise<TelemetryRecords | null> {
  const { provider, meta } = worker;
  if (!provider.readTelemetry) return null;
  const source = findRecordSource(provider, events);
  const transcript = source ? await deps.records.read(source) : null;
  const statusLine = provider.costRecord ? await readStatusLine(deps, meta.name) : null;
  return transcript === null && statusLine === null ? null : { transcript, statusLine };
}

/** The one place telemetry is read from the records: its windows go to the account's record too. */
async function readFrom(deps: Deps, worker: Worker, records: TelemetryRecords): Promise<Telemetry | null> {
  const telemetry = worker.provider.readTelemetry?.(records) ?? null;
  await noteWindows(deps, worker.meta, telemetry);
  return telemetry;
}
