import { StateError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { loadProvider } from "../../core/providers/load.ts";
import type { HookEvent, Provider } from "../../core/providers/types.ts";
import { composerEndsTurn } from "../../core/wait/composer.ts";
import type { ExitRecord } from "../../core/wait/outcome.ts";
import {
  assessTurn,
  correctTurn,
  findRecordSource,
  findTranscriptPath,
  type TurnState,
} from "../../core/wait/turn.ts";
import { parseEvents } from "../../core/worker/events.ts";
import type { Meta } from "../../core/worker/meta.ts";
import { settleTakeover } from "../pool/takeover.ts";
import { isGone } from "./alive.ts";

export type Worker = { readonly meta: Meta; readonly provider: Provider };

export async function loadWorker(deps: Deps, name: string): Promise<Worker> {
  let meta = await deps.store.readMeta(name);
  // A spare `spawn NAME` was taking over: settled here if its claimer died half-way.
  if (meta.pool?.takeover) meta = await settleTakeover(deps, name, meta);
  // The directory is the identity: a meta.json naming another worker would send every verb there.
  if (meta.name !== name) {
    // A claim renames the spare's folder, then rewrites its meta.json: a claimer killed in between
    // leaves the spare's meta in its new name's folder (pool-claim.ts).
    const takeover = meta.pool ? ` (a takeover of the spare ${meta.name} that did not finish)` : "";
    const path = deps.store.paths(name).meta;
    throw new StateError(
      `the state of worker ${name} is inconsistent: ${path} names worker ${meta.name}${takeover}; remove it with umbel kill ${name} --purge (it stops the tmux session ${name} too)`,
      { name, metaName: meta.name, path, fix: `correct "name" in that file to ${JSON.stringify(name)}` },
    );
  }
  const provider = loadProvider(meta.provider);
  return { meta, provider: provider instanceof Promise ? await provider : provider };
}

export async function readEvents(deps: Deps, provider: Provider, name: string): Promise<HookEvent[]> {
  return parseEvents(provider, await deps.store.readHooksLog(name));
}

export type Liveness =
  | { alive: true; pid: number | null }
  | {
      alive: false;
      why: "killed" | "exited" | "pane-dead" | "gone" | "spawner-gone" | "owner-gone";
      exit: ExitRecord | null;
    };

/** Alive or not, from the wrapper's exit record first (no tmux call needed), then tmux. */
export async function checkLiveness(deps: Deps, worker: Worker): Promise<Liveness> {
  const name = worker.meta.name;
  const exit = await deps.store.readExit(name);
  if (worker.meta.state === "killed") return { alive: false, why: "killed", exit };
  // An anonymous -p's worker whose -p is gone is nobody's (its wrapper ends its session, prune the rest).
  if (worker.meta.owner && (await isGone(deps, worker.meta.owner)))
    return { alive: false, why: "owner-gone", exit };
  if (exit) {
    await confirmExit(deps, name);
    return { alive: false, why: "exited", exit };
  }
  const pane = await deps.tmux.paneInfo(name);
  if (pane === null) return { alive: false, why: "gone", exit: null };
  if (pane.dead)
    return {
      alive: false,
      why: "pane-dead",
      exit: pane.deadStatus === null ? null : { exitCode: pane.deadStatus },
    };
  if (await spawnerGone(deps, worker.meta)) return { alive: false, why: "spawner-gone", exit: null };
  return { alive: true, pid: pane.pid };
}

/** The wrapper writes its exit record just before it exits; tmux marks the pane dead within this. */
const EXIT_SETTLE_MS = 1000;

/**
 * An exit record is believed only once tmux agrees: a live pane beside one (empty, corrupt or
 * planted) is a state error, never a death — prune would kill a working CLI on its word.
 */
async function confirmExit(deps: Deps, name: string): Promise<void> {
  const until = deps.clock.now() + EXIT_SETTLE_MS;
  for (;;) {
    const pane = await deps.tmux.paneInfo(name);
    if (pane === null || pane.dead) return;
    if (deps.clock.now() >= until) {
      const path = deps.store.paths(name).exit;
      throw new StateError(
        `worker ${name}'s exit record (${path}) says its CLI exited, but its pane is alive (pid ${pane.pid}); remove that file, or umbel kill ${name} --purge`,
        { name, path, pid: pane.pid, fix: "remove that file (the worker goes on)" },
      );
    }
    await deps.clock.sleep(25, deps.signal);
  }
}

/**
 * A worker still "starting" whose spawning process is gone (umbel killed mid-spawn) will never be
 * finished: it may sit on a trust dialog for ever. Its spawner's pid and start tell (pids are reused).
 */
async function spawnerGone(deps: Deps, meta: Meta): Promise<boolean> {
  if (meta.state !== "starting" || !meta.spawner) return false;
  return isGone(deps, meta.spawner);
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

/**
 * Whether the turn the hooks say is on (running, or asking) is on whatever the screen shows. A TUI
 * lags its hooks at a turn's start: claude 2.1.332 kept a submitted prompt in its box, no spinner,
 * for over 2 s after UserPromptSubmit at load ~13, a screen that reads as the idle composer. That
 * composer ends such a turn only as it ends a wait (core/wait/composer.ts), counted from
 * the events log's last growth: 2 s once the turn was drawn (a hook past its submit, or a prompt),
 * else 10 s. A Stop seen with work still going is on.
 */
export async function isTurnOnByHooks(
  deps: Deps,
  worker: Worker,
  events: readonly HookEvent[],
  submit: number,
  turn: TurnState,
): Promise<boolean> {
  if (turn.status !== "running" && turn.status !== "input") return false;
  if (turn.status === "running" && turn.sawStop) return true;
  const changed = await deps.store.eventsChangedAt(worker.meta.name);
  const quietMs = changed === null ? Number.POSITIVE_INFINITY : deps.clock.now() - changed;
  const drawn = turn.status === "input" || events.filter((e) => e.index >= submit).length > 1;
  return !composerEndsTurn(drawn, quietMs);
}
