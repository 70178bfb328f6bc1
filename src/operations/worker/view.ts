import type { Deps } from "../../core/ports.ts";
import type { HookEvent } from "../../core/providers/types.ts";
import { lastSubmitIndex, type TurnState } from "../../core/wait/turn.ts";
import { countEvents, parseEvents } from "../../core/worker/events.ts";
import { currentTurn, loadWorker, type Worker } from "./worker.ts";

/**
 * A worker as a verb sees it at one moment: its meta and provider, its events log read and parsed
 * once, the number of lines in it (the baseline a prompt typed now would get) and the last prompt
 * it took. A verb builds one at its start (`viewWorker(deps, name)`) and passes it down; a later
 * moment (under the composer lock, after a wait) takes a new look at the same worker
 * (`viewWorker(deps, worker)`), which reads the events log again but not meta.json.
 */
export type WorkerView = Worker & {
  readonly events: readonly HookEvent[];
  /** Lines in the events log when it was read: the next event's index. */
  readonly eventCount: number;
  /** The events-log index of the last prompt submitted, or null (none yet). */
  readonly lastSubmit: number | null;
};

export async function viewWorker(deps: Deps, of: string | Worker): Promise<WorkerView> {
  const worker = typeof of === "string" ? await loadWorker(deps, of) : of;
  const log = await deps.store.readHooksLog(worker.meta.name);
  const events = parseEvents(worker.provider, log);
  return {
    meta: worker.meta,
    provider: worker.provider,
    events,
    eventCount: countEvents(log),
    lastSubmit: lastSubmitIndex(worker.provider, events),
  };
}

/** Each view's last turn, worked out once: the transcript is read once per view, not per question. */
const turns = new WeakMap<WorkerView, Promise<TurnState | null>>();

/** The last turn as the view saw it (the hooks corrected by the transcript), or null before any prompt. */
export function lastTurn(deps: Deps, view: WorkerView): Promise<TurnState | null> {
  const known = turns.get(view);
  if (known) return known;
  const turn =
    view.lastSubmit === null
      ? Promise.resolve(null)
      : currentTurn(deps, view, view.events, view.lastSubmit).then((t) => t.turn);
  turns.set(view, turn);
  return turn;
}
