import {
  AbortedError,
  InputRequiredError,
  SpawnFailedError,
  type UmbelError,
  UsageError,
} from "../errors.ts";
import type { PaneInfo } from "../ports.ts";
import type { Provider, ScreenState } from "../providers/types.ts";
import type { ExitRecord } from "../wait/outcome.ts";
import { parseEvents } from "../worker/events.ts";
import type { DialogAnswer } from "../worker/outputs.ts";
import { screenTail } from "../worker/screen.ts";
import type { SignInAdvice } from "../worker/sign-in.ts";

/**
 * spawn's readiness as a pure state machine, driven by `src/operations/spawn/spawn.ts` like `wait`'s:
 * answer startup dialogs by their highlighted option, refuse a sign-in screen, report a CLI that
 * died while starting with its status and last screen, and end once the TUI is ready.
 */

/** Keys sent less than ~0.15 s after claude's trust dialog appears are dropped; wait a bit more. */
const DIALOG_SETTLE_MS = 300;
/** After a move, how long the TUI gets to redraw the highlight before the screen is read again. */
const DIALOG_STEP_MS = 100;
const DIALOG_RETRY_MS = 1500;
/** How often a fatal screen that may clear (codex's thread lock) gets its retry key. */
const RETRY_EVERY_MS = 1000;
/**
 * After a move, how long fresh screens must keep showing the highlight on the answer before Enter.
 * claude 2.1.332 remounts its trust dialog once it settles (a 150 ms timer from its mount, and again
 * after each key it refused as too early), and the remount puts the highlight back on the default
 * "No, exit" with no key pressed: measured 40-250 ms after the dialog appeared at load 14, later
 * as the load grows. A move made before that is undone, and on loaded cores the capture that saw
 * "Yes" is hundreds of ms old when Enter lands (two tmux process starts): 1 of ~9 spawns at load
 * ~11 pressed Enter on "No, exit". A remount comes only after the mount or a refused key, both
 * before the move; once the highlight has held for this long, one that has not come will not.
 */
const DIALOG_HOLD_MS = 1000;
/** Answers (the final key) and moves a dialog may take before the spawn gives up on it. */
const DIALOG_TRIES = 3;
const DIALOG_MOVES = 12;
/** tmux has no change notification: look this often (a hook event wakes the driver earlier). */
const POLL_MS = 100;
/**
 * claude 2.1.332 fires SessionStart 5-40 ms before it draws its composer (traced): once the hook has
 * come, the screen is looked at this often (for a second at most) until it shows ready, not at the
 * next 100 ms poll.
 */
const AFTER_HOOK = { pollMs: 20, forMs: 1000 } as const;
/**
 * Ask tmux whether the pane lives this often, not at every poll: a CLI that exits is seen sooner
 * through the wrapper's exit record (a file event), and every tmux call is a process start taken
 * from a TUI that is booting on the same cores (two calls a poll were ~20 process starts a second).
 */
const PROBE_MS = 1000;
/** The idle screen without the SessionStart hook this long: the hooks do not fire. */
const HOOKLESS_READY_MS = 10_000;
/** A pane the wrapper reported exited is marked dead by tmux within this (then its screen is final). */
const DEAD_SETTLE_MS = 1000;
const DEAD_POLL_MS = 25;

export type ReadyConfig = {
  readonly provider: Provider;
  readonly name: string;
  readonly deadline: number;
  readonly timeoutMs: number;
  /** A folder umbel will not trust on the user's behalf (/ or the home directory), when one is asked. */
  readonly untrusted: string | null;
  /** What a sign-in refusal tells the user to do (core/worker/sign-in.ts); default: log in by hand. */
  readonly signInAdvice?: SignInAdvice;
  /** The worker's cwd: the folder of a trust question whose screen does not spell it out. */
  readonly cwd?: string;
  /**
   * The worker trusts its folder for its own session only (-p, a spare of the warm pool): a trust
   * question whose answer the CLI would keep in the user's configuration is refused, never answered.
   */
  readonly sessionTrust?: boolean;
  /**
   * Events before this line of the log are an earlier incarnation's (a worker relaunched in place by
   * --on-limit failover): only a SessionStart from here on is this CLI's.
   */
  readonly logFrom?: number;
};

export type ReadyCommand =
  | { readonly kind: "read-exit" }
  | { readonly kind: "read-log" }
  /** `tolerant`: a failing tmux reads as a gone pane (the worker is being reported dead anyway). */
  | { readonly kind: "probe"; readonly tolerant: boolean }
  | { readonly kind: "capture"; readonly scrollback: boolean }
  | { readonly kind: "keys"; readonly keys: readonly string[] }
  | { readonly kind: "sleep"; readonly ms: number; readonly wake: boolean }
  | { readonly kind: "ready"; readonly dialogs: readonly DialogAnswer[] }
  | { readonly kind: "fail"; readonly error: UmbelError };

export type ReadyObservation = { readonly now: number; readonly aborted: boolean } & (
  | { readonly kind: "tick" }
  | { readonly kind: "exit"; readonly exit: ExitRecord | null }
  | { readonly kind: "log"; readonly log: string }
  | { readonly kind: "pane"; readonly pane: PaneInfo | null }
  | { readonly kind: "screen"; readonly screen: string | null }
  | { readonly kind: "keys" }
);

type DialogSeen = {
  readonly dialog: string;
  readonly at: number;
  /** When the last key went, and whether it was a move (a redraw is due) or the answer. */
  readonly keyAt: number | null;
  readonly moved: boolean;
  readonly tries: number;
  readonly moves: number;
  /** Since when the screens read after the last move show the highlight on the answer (null: not). */
  readonly onAnswerSince: number | null;
};

export type ReadyState =
  | {
      readonly phase: "starting";
      readonly config: ReadyConfig;
      readonly answered: readonly DialogAnswer[];
      readonly dialog: DialogSeen | null;
      readonly readySince: number | null;
      readonly screen: string | null;
      /** When tmux last said the pane lives. */
      readonly probedAt: number;
      /** When the SessionStart hook was first seen (the composer is about to be drawn). */
      readonly hookedAt: number | null;
      /** A fatal screen that may clear (ScreenState's `retry`): since when, and its last key. */
      readonly retrying: { readonly since: number; readonly keyAt: number } | null;
    }
  /** The CLI exited while starting: wait for tmux to mark the pane dead, then take its screen. */
  | {
      readonly phase: "dead";
      readonly config: ReadyConfig;
      readonly exitCode: number | null;
      readonly until: number | null;
      readonly screen: string | null;
    };

export type ReadyStep = { readonly state: ReadyState; readonly next: ReadyCommand };

export function startReady(config: ReadyConfig): ReadyState {
  return {
    phase: "starting",
    config,
    answered: [],
    dialog: null,
    readySince: null,
    screen: "",
    probedAt: Number.NEGATIVE_INFINITY,
    hookedAt: null,
    retrying: null,
  };
}

export function stepReady(state: ReadyState, o: ReadyObservation): ReadyStep {
  return state.phase === "starting" ? stepStarting(state, o) : stepDead(state, o);
}

type Starting = Extract<ReadyState, { phase: "starting" }>;
type Dead = Extract<ReadyState, { phase: "dead" }>;

function stepStarting(s: Starting, o: ReadyObservation): ReadyStep {
  const { provider, name } = s.config;
  switch (o.kind) {
    case "tick":
      if (o.aborted)
        return fail(s, new AbortedError("spawn was interrupted; the worker was removed", { name }));
      return { state: s, next: { kind: "read-exit" } };
    case "exit":
      if (o.exit) return dying(s, o.exit.exitCode ?? null);
      if (o.now - s.probedAt < PROBE_MS) return { state: s, next: { kind: "capture", scrollback: false } };
      return { state: s, next: { kind: "probe", tolerant: false } };
    case "pane":
      if (o.pane === null || o.pane.dead) return dying(s, o.pane?.deadStatus ?? null);
      return { state: { ...s, probedAt: o.now }, next: { kind: "capture", scrollback: false } };
    case "screen":
      return onScreen({ ...s, screen: o.screen }, o.now);
    case "keys":
      return untilDeadline(s, o.now);
    case "log": {
      const from = s.config.logFrom ?? 0;
      const started = parseEvents(provider, o.log).some(
        (e) => e.index >= from && provider.interpretEvent(e).kind === "session-start",
      );
      // Read while the screen is not ready yet: only to know whether the hook has come.
      if (s.readySince === null)
        return untilDeadline({ ...s, hookedAt: s.hookedAt ?? (started ? o.now : null) }, o.now);
      if (started) return { state: s, next: { kind: "ready", dialogs: s.answered } };
      if (o.now - (s.readySince ?? o.now) > HOOKLESS_READY_MS)
        return fail(
          s,
          new SpawnFailedError(
            `${provider.displayName} is up but its hooks never fired; umbel cannot follow it`,
            {
              name,
              screen: screenTail(s.screen),
            },
          ),
        );
      return untilDeadline(s, o.now);
    }
  }
}

function onScreen(s: Starting, now: number): ReadyStep {
  const { provider, name } = s.config;
  const screen = s.screen;
  const state = provider.classifyScreen(screen ?? "");
  switch (state.kind) {
    case "dialog": {
      if (state.fatal && state.retry) return retryFatal(s, now, state.fatal, state.retry);
      if (state.fatal)
        return fail(
          s,
          new SpawnFailedError(`${state.fatal}:\n${screenTail(screen)}`, {
            name,
            screen: screenTail(screen),
          }),
        );
      const { untrusted } = s.config;
      if (state.grantsTrust && untrusted !== null)
        return fail(
          s,
          new UsageError(
            `${provider.displayName} asks to trust ${untrusted}; umbel will not trust / or your home directory on your behalf. Start ${provider.defaultBin} there once by hand and answer its trust question yourself, or give a project folder as --cwd`,
            { name, path: untrusted, dialog: state.dialog },
          ),
        );
      const answer = describeAnswer(state, s.config.cwd);
      if (s.config.sessionTrust && state.grantsTrust && state.lasting)
        return fail(s, sessionOnly(s.config, answer));
      return onDialog(s, now, answer, state.keys);
    }
    case "sign-in": {
      const advice = s.config.signInAdvice?.text ?? `run ${provider.defaultBin} once by hand to log in`;
      const withheld = s.config.signInAdvice?.withheld ?? [];
      const token = provider.signInToken?.env;
      return fail(
        s,
        new InputRequiredError(`${provider.displayName} is not signed in: ${advice}`, {
          name,
          screen: state.text,
          ...(token ? { env: token, flag: `--env ${token}` } : {}),
          // The names of the keys umbel kept from the worker on purpose (never their values).
          ...(withheld.length > 0 ? { withheld } : {}),
        }),
      );
    }
    case "exited":
      return fail(
        s,
        new SpawnFailedError(`${provider.displayName} refused to start:\n${state.text}`, {
          name,
          screen: state.text,
        }),
      );
    case "ready": {
      const ready: Starting = { ...s, readySince: s.readySince ?? now };
      // codex fires SessionStart at the first prompt: its status line is all there is to see.
      if (provider.sessionStartAtLaunch === false)
        return { state: ready, next: { kind: "ready", dialogs: s.answered } };
      return { state: ready, next: { kind: "read-log" } };
    }
    default: {
      const waiting: Starting = { ...s, readySince: null };
      // Not drawn yet: has its SessionStart come (then the composer is tens of ms away)?
      if (s.hookedAt === null && provider.sessionStartAtLaunch !== false)
        return { state: waiting, next: { kind: "read-log" } };
      return untilDeadline(waiting, now);
    }
  }
}

/**
 * One key at a time, the screen read again after each: a move (Down/Up) is followed by whatever the
 * redrawn screen asks for, so Enter goes only once the highlight sits on the answer, and after a
 * move only once fresh screens have shown it there for DIALOG_HOLD_MS (the CLI may reset it). Under
 * load a TUI drops keys (1 of 120 concurrent spawns pressed Enter on claude's "No, exit").
 */
function onDialog(s: Starting, now: number, answer: DialogAnswer, keys: readonly string[]): ReadyStep {
  const { name } = s.config;
  const { dialog } = answer;
  const moving = keys.length > 1;
  const known: DialogSeen =
    s.dialog?.dialog === dialog
      ? s.dialog
      : { dialog, at: now, keyAt: null, moved: false, tries: 0, moves: 0, onAnswerSince: null };
  // The highlight moved onto the answer by umbel's keys may still be undone by a redraw of the CLI's.
  const seen: DialogSeen = {
    ...known,
    onAnswerSince: moving || known.moves === 0 ? null : (known.onAnswerSince ?? now),
  };
  const base: Starting = { ...s, readySince: null, dialog: seen };
  const due =
    seen.keyAt === null
      ? now - seen.at >= DIALOG_SETTLE_MS
      : now - seen.keyAt >= (seen.moved ? DIALOG_STEP_MS : DIALOG_RETRY_MS);
  const held = seen.onAnswerSince === null || now - seen.onAnswerSince >= DIALOG_HOLD_MS;
  if (!due || !held) return untilDeadline(base, now);
  const key = keys[0];
  if (key === undefined || (moving ? seen.moves >= DIALOG_MOVES : seen.tries >= DIALOG_TRIES))
    return fail(
      base,
      new SpawnFailedError(`the ${dialog} dialog did not accept umbel's answer`, {
        name,
        screen: screenTail(s.screen),
      }),
    );
  const answered = s.answered.some((a) => a.dialog === dialog) ? s.answered : [...s.answered, answer];
  const next: Starting = {
    ...base,
    answered,
    dialog: {
      ...seen,
      keyAt: now,
      moved: moving,
      tries: seen.tries + (moving ? 0 : 1),
      moves: seen.moves + (moving ? 1 : 0),
    },
  };
  return { state: next, next: { kind: "keys", keys: [key] } };
}

/** What spawn reports of a dialog it answers; a trust question's folder is the cwd unless it names one. */
function describeAnswer(
  state: Extract<ScreenState, { kind: "dialog" }>,
  cwd: string | undefined,
): DialogAnswer {
  const named = state.folders ?? [];
  const folders = state.grantsTrust && named.length === 0 && cwd !== undefined ? [cwd] : [...named];
  return {
    dialog: state.dialog,
    ...(state.answer === undefined ? {} : { answer: state.answer }),
    ...(state.grantsTrust || folders.length > 0 ? { folders } : {}),
    lasting: state.lasting === true,
  };
}

function sessionOnly(config: ReadyConfig, answer: DialogAnswer): UmbelError {
  const { provider, name } = config;
  const folder = answer.folders?.join(", ") || "its folder";
  return new InputRequiredError(
    `${provider.displayName} asks to trust ${folder}, and would keep that answer in your own configuration; this worker (umbel -p, or a spare of the warm pool) trusts its folder for its own session only, so umbel does not answer it. Start ${provider.defaultBin} there once and answer it yourself, or use umbel spawn, which answers it and says so`,
    { name, path: answer.folders?.[0] ?? null, dialog: answer.dialog },
  );
}

/** A fatal screen that may clear: its keys once a second until `forMs` from the first sight. */
function retryFatal(
  s: Starting,
  now: number,
  fatal: string,
  retry: { readonly keys: readonly string[]; readonly forMs: number },
): ReadyStep {
  const since = s.retrying?.since ?? now;
  if (now - since >= retry.forMs) {
    const screen = screenTail(s.screen);
    const pressed = `${retry.keys.join(" ")} pressed for ${Math.round(retry.forMs / 1000)} s`;
    return fail(
      s,
      new SpawnFailedError(`${fatal} (${pressed}):\n${screen}`, { name: s.config.name, screen }),
    );
  }
  if (s.retrying === null || now - s.retrying.keyAt >= RETRY_EVERY_MS)
    return { state: { ...s, retrying: { since, keyAt: now } }, next: { kind: "keys", keys: retry.keys } };
  return untilDeadline(s, now);
}

function untilDeadline(s: Starting, now: number): ReadyStep {
  const { provider, name, deadline, timeoutMs } = s.config;
  if (now >= deadline)
    return fail(
      s,
      new SpawnFailedError(`${provider.displayName} was not ready within ${timeoutMs} ms`, {
        name,
        screen: screenTail(s.screen),
      }),
    );
  const fast = s.hookedAt !== null && now - s.hookedAt < AFTER_HOOK.forMs;
  return { state: s, next: { kind: "sleep", ms: fast ? AFTER_HOOK.pollMs : POLL_MS, wake: true } };
}

function dying(s: Starting, exitCode: number | null): ReadyStep {
  const dead: Dead = { phase: "dead", config: s.config, exitCode, until: null, screen: null };
  return { state: dead, next: { kind: "probe", tolerant: true } };
}

/**
 * tmux marks a pane dead at the pty's EOF, before it reaps the child: its status can still be blank.
 * The wrapper wrote exit.json before it exited, so once the screen is taken the record is there.
 */
function stepDead(s: Dead, o: ReadyObservation): ReadyStep {
  switch (o.kind) {
    case "pane": {
      const until = s.until ?? o.now + DEAD_SETTLE_MS;
      if (o.pane === null || o.pane.dead || o.now >= until)
        return { state: { ...s, until }, next: { kind: "capture", scrollback: true } };
      return { state: { ...s, until }, next: { kind: "sleep", ms: DEAD_POLL_MS, wake: false } };
    }
    case "tick":
      return { state: s, next: { kind: "probe", tolerant: true } };
    case "screen": {
      const state = { ...s, screen: o.screen };
      return s.exitCode === null ? { state, next: { kind: "read-exit" } } : died(state);
    }
    case "exit":
      return died({ ...s, exitCode: s.exitCode ?? o.exit?.exitCode ?? null });
    default:
      return died(s);
  }
}

function died(s: Dead): ReadyStep {
  const { provider, name } = s.config;
  const screen = screenTail(s.screen);
  const status = s.exitCode === null ? "" : ` with status ${s.exitCode}`;
  return fail(
    s,
    new SpawnFailedError(
      `${provider.displayName} exited during startup${status}${screen ? `:\n${screen}` : ""}`,
      {
        name,
        exitCode: s.exitCode,
        screen,
      },
    ),
  );
}

function fail(state: ReadyState, error: UmbelError): ReadyStep {
  return { state, next: { kind: "fail", error } };
}
