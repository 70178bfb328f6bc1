import type { FailoverResult } from "../../src/core/accounts/failover.ts";
import type { PaneInfo } from "../../src/core/ports.ts";
import {
  type ReadyCommand,
  type ReadyConfig,
  type ReadyObservation,
  startReady,
  stepReady,
} from "../../src/core/spawn/ready.ts";
import { startWait, stepWait } from "../../src/core/wait/machine.ts";
import type { ExitRecord } from "../../src/core/wait/outcome.ts";
import type { PaneSeen, WaitCommand, WaitConfig, WaitObservation } from "../../src/core/wait/types.ts";
import type { DialogAnswer } from "../../src/core/worker/outputs.ts";

/**
 * A scripted world for the pure state machines (wait, spawn readiness) on a virtual clock: what the
 * events log, the exit record, the screen, the pane and the transcript hold at each millisecond.
 * File reads cost 1 ms, tmux calls 2 ms; a hung tmux answers only at the command's bound.
 */
export type World = {
  /** Hook payload lines, each appended to the events log at its time. */
  readonly events?: readonly (readonly [number, object])[];
  readonly exit?: readonly [number, ExitRecord];
  /** The screen from each time on (null: capture fails). */
  readonly screens?: readonly (readonly [number, string | null])[];
  readonly pane?: readonly (readonly [number, PaneSeen])[];
  /** The transcript's whole text from each time on. */
  readonly transcript?: readonly (readonly [number, string])[];
  /** claude's statusline JSON from each time on (a cost budget reads it). */
  readonly statusLine?: readonly (readonly [number, string])[];
  /**
   * A prompt umbel sends (--on-limit continue): the events it brings, each `afterMs` after the send,
   * or null when the send fails. The baseline is the log's line count at the send.
   */
  readonly onSend?: (prompt: string, at: number) => readonly (readonly [number, object])[] | null;
  /**
   * A failover the machine asks for (--on-limit failover): what the driver found, and the events the
   * relaunched worker's continued turn brings, each `afterMs` after it (moved: the baseline is the
   * log's line count then). Takes `moveMs` of the virtual clock (default 50).
   */
  readonly onFailover?: (
    command: { limit: object; left: readonly (string | null)[]; until: number },
    at: number,
  ) => {
    readonly result: FailoverResult;
    readonly brings?: readonly (readonly [number, object])[];
    readonly moveMs?: number;
  };
  /** From this time on, tmux never answers. */
  readonly tmuxHangsFrom?: number;
  readonly abortAt?: number;
};

export type Trace = { readonly at: number; readonly command: string };

function valueAt<T>(script: readonly (readonly [number, T])[] | undefined, t: number, initial: T): T {
  let value = initial;
  for (const [at, v] of script ?? []) if (at <= t) value = v;
  return value;
}

function logAt(world: Pick<World, "events">, t: number): string {
  return (world.events ?? [])
    .filter(([at]) => at <= t)
    .map(([, payload]) => `${JSON.stringify(payload)}\n`)
    .join("");
}

/** The next time after `t` at which a file in events/ changes (a watcher wakes then). */
function nextFileEvent(world: Pick<World, "events" | "exit">, t: number): number {
  const times = [...(world.events ?? []).map(([at]) => at), ...(world.exit ? [world.exit[0]] : [])];
  return Math.min(...times.filter((at) => at > t), Number.POSITIVE_INFINITY);
}

function hung(world: World, t: number): boolean {
  return world.tmuxHangsFrom !== undefined && t >= world.tmuxHangsFrom;
}

export type WaitRun = {
  readonly reason: string;
  /** The baseline the outcome names (a continuation prompt moves it). */
  readonly baseline: number;
  /** The failovers the machine asked for: the time and the accounts it said were left. */
  readonly failovers: readonly (readonly [number, readonly (string | null)[]])[];
  /** Prompts the machine sent, with the time. */
  readonly sent: readonly (readonly [number, string])[];
  readonly evidence: Record<string, unknown>;
  readonly at: number;
  readonly trace: readonly Trace[];
  readonly keys: readonly (readonly string[])[];
};

/** Runs the wait machine against the world from its config's startedAt, to its `done`. */
export function runWait(config: WaitConfig, given: World, maxSteps = 100_000): WaitRun {
  const world = { ...given, events: [...(given.events ?? [])] };
  const sent: [number, string][] = [];
  const failovers: [number, readonly (string | null)[]][] = [];
  let now = config.startedAt;
  let state = startWait(config);
  const trace: Trace[] = [];
  const keys: string[][] = [];
  const stamp = (o: object) =>
    ({ ...o, now, aborted: world.abortAt !== undefined && now >= world.abortAt }) as WaitObservation;
  let seen = stamp({ kind: "tick" });
  for (let i = 0; i < maxSteps; i++) {
    const step = stepWait(state, seen);
    state = step.state;
    const c: WaitCommand = step.next;
    trace.push({ at: now, command: c.kind });
    if (c.kind === "done")
      return {
        reason: c.reason,
        evidence: { ...c.evidence },
        at: now,
        trace,
        keys,
        baseline: state.config.baseline,
        sent,
        failovers,
      };
    if (c.kind === "failover") {
      failovers.push([now, c.left]);
      const answer = world.onFailover?.(c, now) ?? {
        result: { status: "failed", error: "no failover in this world" } as const,
      };
      now += answer.moveMs ?? 50;
      const result =
        answer.result.status === "moved"
          ? { ...answer.result, baseline: world.events.filter(([at]) => at <= now).length }
          : answer.result;
      for (const [after, payload] of answer.brings ?? []) world.events.push([now + after, payload]);
      world.events.sort((a, b) => a[0] - b[0]);
      seen = stamp({ kind: "failed-over", result });
      continue;
    }
    if (c.kind === "send") {
      now += 5;
      sent.push([now, c.prompt]);
      const brings = world.onSend?.(c.prompt, now) ?? null;
      const baseline = world.events.filter(([at]) => at <= now).length;
      if (brings !== null) for (const [after, payload] of brings) world.events.push([now + after, payload]);
      world.events.sort((a, b) => a[0] - b[0]);
      seen = stamp({
        kind: "sent",
        baseline: brings === null ? null : baseline,
        error: brings === null ? "not taken" : null,
      });
      continue;
    }
    seen = performWait(
      c,
      world,
      () => now,
      (t) => (now = t),
      keys,
      stamp,
    );
  }
  throw new Error("the wait machine did not finish");
}

function performWait(
  c: Exclude<WaitCommand, { kind: "done" | "send" | "failover" }>,
  world: World,
  clock: () => number,
  set: (t: number) => void,
  keys: string[][],
  stamp: (o: object) => WaitObservation,
): WaitObservation {
  const now = clock();
  const tmux = (bound: number): boolean => {
    if (hung(world, now)) {
      set(Math.max(now, bound));
      return false;
    }
    set(now + 2);
    return true;
  };
  switch (c.kind) {
    case "read": {
      set(now + 1);
      const exit = world.exit && world.exit[0] <= now ? world.exit[1] : null;
      if (!c.statusLine) return stamp({ kind: "read", log: logAt(world, now), exit });
      const statusLine = valueAt<string | null>(world.statusLine, now, null);
      return stamp({ kind: "read", log: logAt(world, now), exit, statusLine });
    }
    case "read-transcript": {
      set(now + 1);
      const text = valueAt<string | null>(world.transcript, now, null);
      const size = text === null ? null : text.length;
      return stamp({ kind: "transcript", size, text: c.wantText && size !== c.knownSize ? text : null });
    }
    case "probe":
      return stamp({ kind: "pane", pane: tmux(c.bound) ? valueAt(world.pane, now, "alive") : "unknown" });
    case "capture":
      return stamp({ kind: "screen", screen: tmux(c.bound) ? valueAt(world.screens, now, null) : null });
    case "keys":
      if (tmux(c.bound)) keys.push([...c.keys]);
      return stamp({ kind: "keys" });
    case "sleep": {
      const until = now + c.ms;
      set(c.wake ? Math.min(until, nextFileEvent(world, now)) : until);
      if (world.abortAt !== undefined && world.abortAt > now && world.abortAt < clock()) set(world.abortAt);
      return stamp({ kind: "tick" });
    }
  }
}

export type ReadyRun = {
  readonly result: "ready" | "fail";
  /** The dialogs' names (`dialogs`, each with what was answered). */
  readonly dialogsAnswered: readonly string[];
  readonly dialogs: readonly DialogAnswer[];
  readonly error: { name: string; message: string; data: Record<string, unknown> } | null;
  readonly at: number;
  readonly keys: readonly (readonly string[])[];
  /** Every command the machine gave, by kind, in order. */
  readonly commands: readonly string[];
};

/** Runs spawn's readiness machine against the world from time 0. Panes are PaneInfo here. */
export function runReady(
  config: ReadyConfig,
  given: Omit<World, "pane"> & {
    readonly pane?: readonly (readonly [number, PaneInfo | null])[];
    /**
     * The TUI's reaction to keys: the screen it shows from then on, or screens it shows each so many
     * ms after the keys landed (a redraw of its own, later); null: no change.
     */
    readonly onKeys?: (
      keys: readonly string[],
      screen: string | null,
    ) => string | readonly (readonly [number, string])[] | null;
    /**
     * How long a tmux call takes (default 2 ms; a process start on loaded cores takes hundreds): a
     * capture shows the screen as the call began, keys land as it ends.
     */
    readonly tmuxMs?: number;
  },
  maxSteps = 100_000,
): ReadyRun {
  const world = { ...given, screens: [...(given.screens ?? [])] };
  const tmuxMs = given.tmuxMs ?? 2;
  let now = 0;
  let state = startReady(config);
  const keys: string[][] = [];
  const commands: string[] = [];
  const stamp = (o: object) =>
    ({ ...o, now, aborted: world.abortAt !== undefined && now >= world.abortAt }) as ReadyObservation;
  let seen = stamp({ kind: "tick" });
  const alive: PaneInfo = { dead: false, deadStatus: null, pid: 42 };
  for (let i = 0; i < maxSteps; i++) {
    const step = stepReady(state, seen);
    state = step.state;
    const c: ReadyCommand = step.next;
    commands.push(c.kind);
    if (c.kind === "ready")
      return {
        result: "ready",
        dialogsAnswered: c.dialogs.map((d) => d.dialog),
        dialogs: c.dialogs,
        error: null,
        at: now,
        keys,
        commands,
      };
    if (c.kind === "fail")
      return {
        result: "fail",
        dialogsAnswered: [],
        dialogs: [],
        error: { name: c.error.name, message: c.error.message, data: c.error.data },
        at: now,
        keys,
        commands,
      };
    switch (c.kind) {
      case "read-exit":
        now += 1;
        seen = stamp({ kind: "exit", exit: world.exit && world.exit[0] <= now ? world.exit[1] : null });
        break;
      case "read-log":
        now += 1;
        seen = stamp({ kind: "log", log: logAt(world, now) });
        break;
      case "probe":
        now += 2;
        seen = stamp({ kind: "pane", pane: valueAt<PaneInfo | null>(world.pane, now, alive) });
        break;
      case "capture": {
        const began = now;
        now += tmuxMs;
        seen = stamp({ kind: "screen", screen: valueAt(world.screens, began, null) });
        break;
      }
      case "keys": {
        now += tmuxMs;
        keys.push([...c.keys]);
        const next = world.onKeys?.(c.keys, valueAt(world.screens, now, null)) ?? null;
        if (typeof next === "string") world.screens.push([now, next]);
        else for (const [after, screen] of next ?? []) world.screens.push([now + after, screen]);
        world.screens.sort((a, b) => a[0] - b[0]);
        seen = stamp({ kind: "keys" });
        break;
      }
      case "sleep":
        now = c.wake ? Math.min(now + c.ms, nextFileEvent(world, now)) : now + c.ms;
        seen = stamp({ kind: "tick" });
        break;
    }
  }
  throw new Error("the readiness machine did not finish");
}
