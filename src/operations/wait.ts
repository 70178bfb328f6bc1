import { stat } from "node:fs/promises";
import { readTextOrNull } from "../adapters/files.ts";
import { watchDir } from "../adapters/watch.ts";
import { TmuxError, TmuxTimeoutError } from "../core/errors.ts";
import { parseEvents } from "../core/events.ts";
import {
  decideOutcome,
  type ExitRecord,
  OUTCOME_EXIT,
  type Outcome,
  type OutcomeEvidence,
} from "../core/outcome.ts";
import type { HookEvent, ScreenState } from "../core/providers/types.ts";
import type { OutcomeReason, WaitInput } from "../core/schemas.ts";
import {
  applyTranscriptEnd,
  assessTurn,
  findTranscriptPath,
  lastSubmitIndex,
  type TurnState,
} from "../core/turn.ts";
import type { Deps } from "./context.ts";
import { lastScreen, loadWorker, screenTail, type Worker } from "./worker.ts";

export const DEFAULT_WAIT_TIMEOUT_MS = 30 * 60_000;
/** Safety-net poll: tmux liveness (an external kill writes no file) and, with --idle-timeout, the screen. */
const POLL_MS = 1000;
/**
 * claude's PermissionRequest hook fires 50-150 ms before the prompt is drawn, while the screen still
 * reads busy; no hook follows it. Re-check the screen this often for a while, not once a second.
 */
const PROMPT_DRAW = { pollMs: 50, forMs: 1500 } as const;
/**
 * After the end-of-turn hook, how long the transcript may take to say how the turn ended (codex
 * writes task_complete 15-75 ms after Stop; gemini its error or "Request cancelled." around AfterAgent).
 */
const TRANSCRIPT_SETTLE_MS = 3000;

export type WaitProgress = { elapsedMs: number; turn: TurnState["status"] };

/**
 * Blocks until the turn after the baseline ends and returns exactly one outcome. Wakes on file
 * events (hooks, the wrapper's exit record); polls tmux once a second as a safety net. The deadline
 * holds even when tmux hangs: every tmux call is raced against it.
 */
export async function waitForTurn(
  deps: Deps,
  input: WaitInput,
  onProgress?: (progress: WaitProgress) => void,
): Promise<Outcome> {
  const startedAt = deps.clock.now();
  const worker = await loadWorker(deps, input.name);
  const { name } = worker.meta;
  const timeoutMs = input.timeout ?? DEFAULT_WAIT_TIMEOUT_MS;
  const deadline = startedAt + timeoutMs;
  const idleTimeoutMs = input.idleTimeout ?? null;
  let baseline = input.after;
  if (baseline === undefined) {
    const last = lastSubmitIndex(
      worker.provider,
      parseEvents(worker.provider, await deps.store.readHooksLog(name)),
    );
    if (last === null)
      return finish(worker, 0, startedAt, deps.clock.now(), "stop", { detail: "no turn has been sent" });
    baseline = last;
  }
  const waker = watchDir(deps.store.paths(name).events);
  const activity = { at: startedAt, fingerprint: "" };
  let tmuxState = { paneDead: false, sessionGone: false, checkedAt: -Infinity };
  let inputSeen = { index: -1, at: 0 };
  const composer: { since: number | null; checkedAt: number } = { since: null, checkedAt: -Infinity };
  let stopSeenAt: number | null = null;
  let stopChosen = false;
  const progress = { at: startedAt, key: "" };
  const stallMs =
    Number(deps.env.UMBEL_RETRY_STALL_MS) > 0 ? Number(deps.env.UMBEL_RETRY_STALL_MS) : undefined;
  try {
    for (;;) {
      const now = deps.clock.now();
      if (deps.signal?.aborted) return finish(worker, baseline, startedAt, now, "aborted", {});
      const log = await deps.store.readHooksLog(name);
      const events = parseEvents(worker.provider, log);
      const hooked = assessTurn(worker.provider, events, baseline);
      const ended = await endFromTranscript(worker, events, hooked);
      let turn = applyTranscriptEnd(hooked, ended);
      // The hook said stop, the transcript says nothing yet: give it a moment before trusting "stop".
      const holding =
        turn === hooked &&
        hooked.status === "stop" &&
        !hooked.interrupted &&
        ended === null &&
        worker.provider.transcriptTurnEnd !== undefined;
      if (holding) stopSeenAt ??= now;
      if (holding && now - (stopSeenAt ?? now) < TRANSCRIPT_SETTLE_MS)
        turn = {
          status: "running",
          promptId: hooked.promptId,
          submittedAt: null,
          outstanding: [],
          sawStop: true,
        };
      const exit = await deps.store.readExit(name);
      if (now - tmuxState.checkedAt >= POLL_MS || worker.meta.state === "killed") {
        tmuxState = { ...(await probeTmux(deps, worker, deadline)), checkedAt: now };
        if (idleTimeoutMs !== null) {
          const screen = await raceDeadline(
            deps.tmux.capture(name).catch(() => null),
            deadline,
          );
          const fingerprint = `${log.length}|${exit ? 1 : 0}|${await transcriptSize(worker, events)}|${stillOf(worker, screen)}`;
          if (fingerprint !== activity.fingerprint) Object.assign(activity, { at: now, fingerprint });
        }
      }
      const inputAnswered = turn.status === "input" && (await isPastPrompt(deps, worker, deadline));
      // The turn may have ended with no hook at all (Escape, a prompt denied with keys): watch for the
      // idle composer once a second while the hooks still say it is on.
      // codex streams with no busy marker, so its composer proves nothing (its Interrupt hook fires).
      const composerMeansIdle = worker.provider.screenShowsStreaming !== false;
      if (turn.status === "running" || turn.status === "input") {
        if (now - composer.checkedAt >= POLL_MS) {
          composer.checkedAt = now;
          const state = await screenState(deps, worker, deadline);
          composer.since = composerMeansIdle && state?.kind === "ready" ? (composer.since ?? now) : null;
          // gemini's "Keep trying / Stop" box (quota, model not found) fires no hook and waits for
          // ever: choose Stop once; gemini then records the error and fires AfterAgent (provider-error).
          if (state?.kind === "error" && state.keys && state.keys.length > 0 && !stopChosen) {
            stopChosen = true;
            await deps.tmux.sendKeys(name, [...state.keys]).catch(() => undefined);
          }
          const assess = worker.provider.assessStall;
          if (assess && turn.status === "running") {
            const own = events.filter((e) => e.index >= baseline);
            const markers = worker.provider.markerEvents ?? [];
            const key = `${own.filter((e) => !markers.includes(e.name)).length}|${await transcriptSize(worker, events)}`;
            if (key !== progress.key) Object.assign(progress, { at: now, key });
            const stall = assess({
              events: own,
              lastProgressAt: progress.at,
              now,
              busy: state?.kind === "busy",
              ...(stallMs === undefined ? {} : { stallMs }),
            });
            if (stall.stalled) return await endStall(deps, worker, baseline, startedAt, stall, own.length);
          }
        }
      } else composer.since = null;
      const decided = decideOutcome({
        turn,
        inputAnswered,
        exit,
        paneDead: tmuxState.paneDead,
        sessionGone: tmuxState.sessionGone || worker.meta.state === "killed",
        now,
        startedAt,
        deadline,
        lastActivityAt: activity.at,
        idleTimeoutMs,
        readyForMs: composer.since === null ? null : now - composer.since,
      });
      if (decided) return await withEvidence(deps, worker, baseline, startedAt, decided, exit, deadline);
      onProgress?.({ elapsedMs: now - startedAt, turn: turn.status });
      if (turn.status === "input" && turn.at !== inputSeen.index) inputSeen = { index: turn.at, at: now };
      const drawing = turn.status === "input" && now - inputSeen.at < PROMPT_DRAW.forMs;
      const pollMs = drawing ? PROMPT_DRAW.pollMs : stopSeenAt !== null ? 100 : POLL_MS;
      await waker.next(Math.max(1, Math.min(pollMs, deadline - deps.clock.now())), deps.signal);
    }
  } finally {
    waker.close();
  }
}

function finish(
  worker: Worker,
  baseline: number,
  startedAt: number,
  now: number,
  reason: OutcomeReason,
  evidence: OutcomeEvidence,
): Outcome {
  return {
    reason,
    exitCode: OUTCOME_EXIT[reason],
    name: worker.meta.name,
    baseline,
    elapsedMs: now - startedAt,
    evidence,
  };
}

async function withEvidence(
  deps: Deps,
  worker: Worker,
  baseline: number,
  startedAt: number,
  decided: { reason: OutcomeReason; evidence: OutcomeEvidence },
  exit: ExitRecord | null,
  deadline: number,
): Promise<Outcome> {
  const evidence = { ...decided.evidence };
  if (decided.reason !== "stop") {
    // The screen is evidence for everything but a clean stop; never let it break the deadline.
    const bound = Math.max(deadline, deps.clock.now() + 2000);
    const screen =
      decided.reason === "input"
        ? await raceDeadline(
            screenShowing(deps, worker, (kind) => kind === "input"),
            bound,
          )
        : decided.reason === "provider-error"
          ? await raceDeadline(
              screenShowing(deps, worker, (kind) => kind !== "busy"),
              bound,
            )
          : await raceDeadline(
              lastScreen(deps, worker.meta.name).catch(() => null),
              bound,
            );
    evidence.screen = screenTail(typeof screen === "string" ? screen : null, 25);
  }
  if (decided.reason === "dead") evidence.exit = exit ?? (await deps.store.readExit(worker.meta.name));
  return finish(worker, baseline, startedAt, deps.clock.now(), decided.reason, evidence);
}

/**
 * The CLI is past the prompt its last event asked about: it shows its working or its composer screen
 * again (claude, 2.1.332: the tool just allowed runs under "esc to interrupt", after a frame or two
 * without it), not a prompt. A prompt the screen classifier does not know reads "unknown" and stays
 * input; a prompt not drawn yet (the hook fires ~50 ms first) is caught at the next wake.
 */
async function isPastPrompt(deps: Deps, worker: Worker, deadline: number): Promise<boolean> {
  const screen = await raceDeadline(
    deps.tmux.capture(worker.meta.name).catch(() => null),
    deadline,
  );
  if (typeof screen !== "string") return false;
  const kind = worker.provider.classifyScreen(screen).kind;
  return kind === "busy" || kind === "ready";
}

async function screenState(deps: Deps, worker: Worker, deadline: number): Promise<ScreenState | null> {
  const screen = await raceDeadline(
    deps.tmux.capture(worker.meta.name).catch(() => null),
    deadline,
  );
  return typeof screen === "string" ? worker.provider.classifyScreen(screen) : null;
}

/**
 * The screen once it shows what the hook already said, or the last one seen after 1.5 s. claude's
 * hooks run before its TUI catches up: PermissionRequest ~50 ms before the prompt is drawn, and
 * StopFailure 15-150 ms before the error line and the idle screen (2.1.332).
 */
async function screenShowing(
  deps: Deps,
  worker: Worker,
  accept: (kind: ScreenState["kind"]) => boolean,
): Promise<string | null> {
  const until = deps.clock.now() + 1500;
  let screen: string | null = null;
  do {
    screen = await deps.tmux.capture(worker.meta.name).catch(() => null);
    if (screen !== null && accept(worker.provider.classifyScreen(screen).kind)) return screen;
    await deps.clock.sleep(50, deps.signal);
  } while (deps.clock.now() < until);
  return screen;
}

async function probeTmux(
  deps: Deps,
  worker: Worker,
  deadline: number,
): Promise<{ paneDead: boolean; sessionGone: boolean }> {
  try {
    const pane = await raceDeadline(deps.tmux.paneInfo(worker.meta.name), deadline);
    if (pane === TIMED_OUT) return { paneDead: false, sessionGone: false };
    return { paneDead: pane?.dead ?? false, sessionGone: pane === null };
  } catch (error) {
    // A hung or failing tmux says nothing about the worker: never read it as "dead".
    if (error instanceof TmuxTimeoutError || error instanceof TmuxError)
      return { paneDead: false, sessionGone: false };
    throw error;
  }
}

const TIMED_OUT = Symbol("timed-out");

function stillOf(worker: Worker, screen: string | null | typeof TIMED_OUT): string {
  return typeof screen === "string" ? worker.provider.stillScreen(screen) : String(screen);
}

/** The promise's value, or TIMED_OUT when the deadline passes first (the promise is abandoned). */
async function raceDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | typeof TIMED_OUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<typeof TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMED_OUT), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A turn that only retries (gemini: persistent 5xx/429 or an unreachable server, for ever): keep the
 * screen as evidence, interrupt it (gemini rolls the prompt back and fires AfterAgent, so the worker
 * stays usable), give that AfterAgent up to 5 s, and report provider-error by umbel's own deadline.
 */
async function endStall(
  deps: Deps,
  worker: Worker,
  baseline: number,
  startedAt: number,
  stall: { error: string; attempts: number },
  seen: number,
): Promise<Outcome> {
  const { name } = worker.meta;
  const screen = await deps.tmux.capture(name).catch(() => null);
  await deps.tmux.sendKeys(name, [...(worker.provider.interruptKeys ?? ["Escape"])]).catch(() => undefined);
  const until = deps.clock.now() + 5000;
  while (deps.clock.now() < until && !deps.signal?.aborted) {
    const events = parseEvents(worker.provider, await deps.store.readHooksLog(name), baseline);
    if (
      events.length > seen &&
      events.slice(seen).some((e) => worker.provider.interpretEvent(e).kind === "stop")
    )
      break;
    await deps.clock.sleep(100, deps.signal);
  }
  return finish(worker, baseline, startedAt, deps.clock.now(), "provider-error", {
    error: stall.error,
    detail: `retry stall: ${stall.attempts} model attempts, no answer`,
    screen: screenTail(screen, 25),
  });
}

/** What the provider reads in the transcript about the turn (null: nothing, or no such reader). */
async function endFromTranscript(worker: Worker, events: readonly HookEvent[], turn: TurnState) {
  const read = worker.provider.transcriptTurnEnd;
  if (!read || turn.status === "none") return null;
  const path = findTranscriptPath(worker.provider, events);
  const text = path ? await readTextOrNull(path).catch(() => null) : null;
  return text === null ? null : read(text, turn.promptId);
}

async function transcriptSize(worker: Worker, events: readonly HookEvent[]): Promise<number> {
  const path = findTranscriptPath(worker.provider, events);
  if (!path) return -1;
  return (await stat(path).catch(() => null))?.size ?? -1;
}
