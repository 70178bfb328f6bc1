import { parseEvents } from "../core/events.ts";
import type { Meta } from "../core/meta.ts";
import type { ExitRecord } from "../core/outcome.ts";
import type { Deps } from "../core/ports.ts";
import { getProvider } from "../core/providers/registry.ts";
import type { HookEvent, Provider } from "../core/providers/types.ts";
import {
  assessTurn,
  correctTurn,
  findRecordSource,
  findTranscriptPath,
  type TurnState,
} from "../core/turn.ts";

export type Worker = { readonly meta: Meta; readonly provider: Provider };

export async function loadWorker(deps: Deps, name: string): Promise<Worker> {
  const meta = await deps.store.readMeta(name);
  return { meta, provider: getProvider(meta.provider) };
}

export async function readEvents(deps: Deps, provider: Provider, name: string): Promise<HookEvent[]> {
  return parseEvents(provider, await deps.store.readHooksLog(name));
}

export type Liveness =
  | { alive: true; pid: number | null }
  | { alive: false; why: "killed" | "exited" | "pane-dead" | "gone"; exit: ExitRecord | null };

/** Alive or not, from the wrapper's exit record first (no tmux call needed), then tmux. */
export async function checkLiveness(deps: Deps, worker: Worker): Promise<Liveness> {
  const name = worker.meta.name;
  const exit = await deps.store.readExit(name);
  if (worker.meta.state === "killed") return { alive: false, why: "killed", exit };
  if (exit) return { alive: false, why: "exited", exit };
  const pane = await deps.tmux.paneInfo(name);
  if (pane === null) return { alive: false, why: "gone", exit: null };
  if (pane.dead)
    return {
      alive: false,
      why: "pane-dead",
      exit: pane.deadStatus === null ? null : { exitCode: pane.deadStatus },
    };
  return { alive: true, pid: pane.pid };
}

/** The screen of a live or dead pane, or the tombstone's last screen. */
export async function lastScreen(deps: Deps, name: string): Promise<string | null> {
  const live = await deps.tmux.capture(name, { lines: DEAD_SCROLLBACK }).catch(() => null);
  return live ?? (await deps.store.readLastScreen(name));
}

/**
 * The last screen of a pane whose CLI just exited. The wrapper's exit record can land before tmux
 * has read the CLI's final output from the pty; once tmux marks the pane dead it has read it all.
 */
export async function deadPaneScreen(deps: Deps, name: string, boundMs = 1000): Promise<string | null> {
  const until = deps.clock.now() + boundMs;
  for (;;) {
    const pane = await deps.tmux.paneInfo(name).catch(() => null);
    if (pane === null || pane.dead || deps.clock.now() >= until) break;
    await deps.clock.sleep(25);
  }
  return deps.tmux.capture(name, { lines: DEAD_SCROLLBACK }).catch(() => null);
}

/**
 * tmux 3.3 writes "Pane is dead" by scrolling the whole screen up, so a short-lived CLI's output
 * moves into the history: capture some scrollback too (screenTail keeps the last lines).
 */
export const DEAD_SCROLLBACK = 60;

/**
 * The turn after the baseline as every verb sees it (status, send, read): its hooks, corrected by the
 * transcript (`correctTurn`). `wait` keeps the same correction in its state machine.
 */
export async function currentTurn(
  deps: Deps,
  worker: Worker,
  events: readonly HookEvent[],
  baseline: number,
): Promise<{ turn: TurnState; transcriptPath: string | null; transcript: string | null }> {
  const hooked = assessTurn(worker.provider, events, baseline);
  const transcriptPath = findTranscriptPath(worker.provider, events);
  const source = findRecordSource(worker.provider, events);
  const transcript = source ? await deps.records.read(source) : null;
  return { turn: correctTurn(worker.provider, hooked, transcript), transcriptPath, transcript };
}
