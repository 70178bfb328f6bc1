import type { ScreenState } from "../providers/types.ts";
import { parseEvents } from "../worker/events.ts";
import { beginBudget, spentBudget } from "./budget.ts";
import { afterFailover, failOver, moved } from "./failover.ts";
import { beginEvidence, beginStall } from "./finish.ts";
import { afterContinuation, continued, isLimited, waitThroughLimit } from "./limited.ts";
import { decideOutcome } from "./outcome.ts";
import { costOf, readTranscriptFacts, wantsTranscriptText } from "./transcript.ts";
import { applyTranscriptEnd, assessTurn, findRecordSource, withLimit } from "./turn.ts";
import type { Step, WaitObservation, WaitState, Watch } from "./types.ts";

/** Safety-net poll: tmux liveness (an external kill writes no file), the screen, the idle fingerprint. */
const POLL_MS = 1000;
/**
 * A turn whose events log and transcript have not grown for `afterMs` is looked at every `pollMs`:
 * each look is two tmux process starts, and 50 workers waited on at 1 s took 15% of a core in one
 * `wait --all` (40% in 50 waits; bench/fleet.ts). A hook still wakes the wait at once; what only a
 * look sees (a kill from outside, an interrupt that fires no hook, a box with no hook) is seen up to
 * 5 s later in such a turn. Not with --idle-timeout, whose clock is the look.
 */
const QUIET = { afterMs: 10_000, pollMs: 5_000 } as const;
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
/**
 * While holding for the transcript, look this often: every 10 ms for the first 300 ms (where codex's
 * task_complete lands, ~5-75 ms after Stop; the transcript is not watched, so a 100 ms look cost a
 * pooled codex -p turn ~95 ms of its ~280), then every 100 ms. A look is two small reads and a stat.
 */
const HOLD_POLL = { fastMs: 10, fastForMs: 300, pollMs: 100 } as const;
/**
 * A tmux call while watching is abandoned after this (or at the deadline): a hung tmux then reads as
 * "unknown" and the next wake still reads the events, so a Stop that lands meanwhile is not missed.
 */
const TMUX_BOUND_MS = 2000;

type Obs<K extends WaitObservation["kind"]> = Extract<WaitObservation, { kind: K }>;
type Watching = Extract<WaitState, { phase: "watch" }>;

export function initialWatch(startedAt: number): Watch {
  return {
    events: [],
    logLength: 0,
    exit: null,
    hooked: { status: "none" },
    turn: { status: "none" },
    transcript: { size: null, end: null, endFor: null, limit: null, tokens: null },
    costUsd: null,
    limited: { hits: 0, key: null, last: null, prompts: 0, moves: [] },
    pane: { dead: false, gone: false, checkedAt: Number.NEGATIVE_INFINITY },
    activity: { at: startedAt, fingerprint: "" },
    input: { index: -1, seenAt: 0, answered: false },
    composer: { since: null, checkedAt: Number.NEGATIVE_INFINITY, drawn: false },
    stopSeenAt: null,
    stopChosen: false,
    progress: { at: startedAt, key: "" },
    probed: false,
    screen: null,
    changedAt: startedAt,
  };
}

/** One wake: read the files, correct the turn by the transcript, probe tmux and look at the screen when due. */
export function stepWatch(s: Watching, o: WaitObservation): Step {
  const { config } = s;
  switch (o.kind) {
    case "tick":
      if (o.aborted) return done(s, "aborted");
      return {
        state: { ...s, watch: { ...s.watch, probed: false } },
        next: config.budget?.maxCostUsd === undefined ? { kind: "read" } : { kind: "read", statusLine: true },
      };
    case "read":
      return afterRead(s, o);
    case "transcript":
      return corrected(
        grown(s, o.now, o.size !== s.watch.transcript.size),
        o.now,
        readTranscriptFacts(config, s.watch.transcript, promptOf(s.watch), o.size, o.text),
      );
    case "sent":
      if (o.aborted) return done(s, "aborted");
      return afterContinuation(s, o.now, o.baseline, o.error, initialWatch(o.now));
    case "failed-over":
      if (o.aborted) return done(s, "aborted");
      return afterFailover(s, o.now, o.result, initialWatch(o.now));
    case "pane": {
      const pane = { dead: o.pane === "dead", gone: o.pane === "gone", checkedAt: o.now };
      const next: Watching = { ...s, watch: { ...s.watch, pane, probed: true } };
      // tmux just failed or hung: a capture now would only wait out its bound again.
      return o.pane === "unknown" ? decide(next, o.now) : lookAtScreen(next, o.now);
    }
    case "screen":
      return afterScreen(s, o);
    case "keys":
      return afterKeys(s, o.now);
  }
}

function afterRead(s: Watching, o: Obs<"read">): Step {
  const { provider, baseline } = s.config;
  const events = parseEvents(provider, o.log);
  const hooked = assessTurn(provider, events, baseline);
  const costUsd = o.statusLine === undefined ? s.watch.costUsd : costOf(provider, o.statusLine);
  const changedAt = o.log.length !== s.watch.logLength ? o.now : s.watch.changedAt;
  // A hook past the turn's submit (a tool, a prompt): the TUI worked on the turn, so it drew it (the
  // lag behind the hooks is at a turn's start). A wait begun after umbel's own interrupt knows so.
  const drawn = s.watch.composer.drawn || events.filter((e) => e.index >= baseline).length > 1;
  const watch: Watch = {
    ...s.watch,
    events,
    logLength: o.log.length,
    exit: o.exit,
    hooked,
    costUsd,
    changedAt,
    composer: { ...s.watch.composer, drawn },
  };
  const source = findRecordSource(provider, events);
  const wantText = wantsTranscriptText(s.config, hooked);
  // The size alone feeds the idle fingerprint and the stall rule's progress.
  const wantSize = s.config.idleTimeoutMs !== null || provider.assessStall !== undefined;
  const next = { ...s, watch };
  if (source === null || !(wantText || wantSize)) return corrected(next, o.now, watch.transcript);
  // A known size is enough only while the turn (its prompt id) is the one the end was read for.
  const knownSize = watch.transcript.endFor === promptOf(watch) ? watch.transcript.size : null;
  return { state: next, next: { kind: "read-transcript", source, wantText, knownSize } };
}

function promptOf(watch: Watch): string | null {
  return watch.hooked.status === "none" ? null : watch.hooked.promptId;
}

/** The hooks' turn corrected by the transcript, held open while the transcript has not spoken yet. */
function corrected(s: Watching, now: number, transcript: Watch["transcript"]): Step {
  const { provider } = s.config;
  const { hooked } = s.watch;
  const ended = provider.transcriptTurnEnd && hooked.status !== "none" ? transcript.end : null;
  let turn = withLimit(applyTranscriptEnd(hooked, ended), transcript.limit);
  let stopSeenAt = s.watch.stopSeenAt;
  // claude's StopFailure comes with a limit's own words before its transcript line may have landed.
  const limitDue =
    turn.status === "failure" &&
    !turn.limit &&
    provider.limits?.mayBe?.({ error: turn.error, message: turn.message }) === true;
  if (limitDue) stopSeenAt ??= now;
  const holding =
    turn === hooked &&
    hooked.status === "stop" &&
    !hooked.interrupted &&
    ended === null &&
    provider.transcriptTurnEnd !== undefined;
  if (holding) stopSeenAt ??= now;
  // A turn going on again (claude continuing after a limit) is not held: poll at the normal pace.
  if (!holding && !limitDue && turn.status === "running" && !turn.sawStop) stopSeenAt = null;
  if ((holding || limitDue) && now - (stopSeenAt ?? now) < TRANSCRIPT_SETTLE_MS)
    turn = {
      status: "running",
      promptId: turn.status === "none" ? null : turn.promptId,
      submittedAt: null,
      outstanding: [],
      sawStop: true,
    };
  const watch: Watch = { ...s.watch, transcript, turn, stopSeenAt };
  const next: Watching = { ...s, watch };
  // An ended turn or an exit record decides without tmux (and so without a hung tmux's delay).
  if (turn.status === "stop" || turn.status === "failure" || watch.exit) return decide(next, now);
  if (now - watch.pane.checkedAt >= safetyPollMs(next, now) || s.config.killed)
    return { state: next, next: { kind: "probe", bound: tmuxBound(s.config, now) } };
  return lookAtScreen(next, now);
}

/** One capture serves every rule that needs the screen this wake. */
function lookAtScreen(s: Watching, now: number): Step {
  const { turn, probed, composer } = s.watch;
  const on = turn.status === "running" || turn.status === "input";
  const due =
    (s.config.idleTimeoutMs !== null && probed) ||
    turn.status === "input" ||
    (on && now - composer.checkedAt >= safetyPollMs(s, now));
  if (due) return { state: s, next: { kind: "capture", bound: tmuxBound(s.config, now) } };
  return decide(on ? s : { ...s, watch: { ...s.watch, composer: { ...composer, since: null } } }, now);
}

function afterScreen(s: Watching, o: Obs<"screen">): Step {
  const { config } = s;
  const { provider } = config;
  const screen = o.screen === null ? null : provider.classifyScreen(o.screen);
  let watch = o.screen === null ? s.watch : { ...s.watch, screen: o.screen };
  const { turn } = watch;
  if (config.idleTimeoutMs !== null && watch.probed) {
    const still = o.screen === null ? "null" : provider.stillScreen(o.screen);
    const fingerprint = `${watch.logLength}|${watch.exit ? 1 : 0}|${watch.transcript.size ?? -1}|${still}`;
    if (fingerprint !== watch.activity.fingerprint)
      watch = { ...watch, activity: { at: o.now, fingerprint } };
  }
  // The CLI is past the prompt its last event asked about: it shows its working or composer screen
  // again (claude 2.1.332: the allowed tool runs under "esc to interrupt"). An unknown prompt stays input.
  const answered = turn.status === "input" && (screen?.kind === "busy" || screen?.kind === "ready");
  watch = { ...watch, input: { ...watch.input, answered } };
  const on = turn.status === "running" || turn.status === "input";
  if (!on) return decide({ ...s, watch: { ...watch, composer: { ...watch.composer, since: null } } }, o.now);
  if (o.now - watch.composer.checkedAt < safetyPollMs(s, o.now)) return decide({ ...s, watch }, o.now);
  // codex streams with no busy marker, so its composer proves nothing (its Interrupt hook fires).
  const composerMeansIdle = provider.screenShowsStreaming !== false;
  // A hook since is the turn going on: the idle composer counts from the log's last growth.
  const since =
    composerMeansIdle && screen?.kind === "ready"
      ? Math.max(watch.composer.since ?? o.now, watch.changedAt)
      : null;
  const drawn = watch.composer.drawn || screen?.kind === "busy" || screen?.kind === "input";
  watch = { ...watch, composer: { since, checkedAt: o.now, drawn } };
  // gemini's "Keep trying / Stop" box (quota, model not found) fires no hook and waits for ever:
  // choose Stop once; gemini then records the error and fires AfterAgent (provider-error).
  if (screen?.kind === "error" && screen.keys && screen.keys.length > 0 && !watch.stopChosen) {
    const next: Watching = { ...s, watch: { ...watch, stopChosen: true } };
    return { state: next, next: { kind: "keys", keys: [...screen.keys], bound: tmuxBound(config, o.now) } };
  }
  return checkStall({ ...s, watch }, o.now, screen);
}

function afterKeys(s: Watching, now: number): Step {
  // The box the keys answered was not busy: the stall rule sees this wake as not busy.
  return checkStall(s, now, null);
}

function checkStall(s: Watching, now: number, screen: ScreenState | null): Step {
  const { provider, baseline, stallMs } = s.config;
  const assess = provider.assessStall;
  const { turn } = s.watch;
  if (!assess || turn.status !== "running") return decide(s, now);
  const own = s.watch.events.filter((e) => e.index >= baseline);
  const markers = provider.markerEvents ?? [];
  const key = `${own.filter((e) => !markers.includes(e.name)).length}|${s.watch.transcript.size ?? -1}`;
  const progress = key !== s.watch.progress.key ? { at: now, key } : s.watch.progress;
  const stall = assess({
    events: own,
    lastProgressAt: progress.at,
    now,
    busy: screen?.kind === "busy",
    ...(stallMs === undefined ? {} : { stallMs }),
  });
  const next: Watching = { ...s, watch: { ...s.watch, progress } };
  if (stall.stalled) return beginStall(next, now, stall, own.length);
  return decide(next, now);
}

function decide(s: Watching, now: number): Step {
  const { config, watch } = s;
  const { turn } = watch;
  const spent = spentBudget(s);
  if (spent) return beginBudget(s, now, spent);
  if (isLimited(turn) && config.onLimit === "continue") return waitThroughLimit(s, now, turn);
  if (isLimited(turn) && config.onLimit === "failover") return failOver(s, now, turn);
  const decided = decideOutcome({
    turn,
    inputAnswered: turn.status === "input" && watch.input.answered,
    exit: watch.exit,
    paneDead: watch.pane.dead,
    sessionGone: watch.pane.gone || config.killed,
    now,
    startedAt: config.startedAt,
    deadline: config.deadline,
    lastActivityAt: watch.activity.at,
    idleTimeoutMs: config.idleTimeoutMs,
    // A hook since the last look is the turn going on: the idle composer counts from it (the look
    // that would restart the count may come after this wake decides).
    readyForMs: watch.composer.since === null ? null : now - Math.max(watch.composer.since, watch.changedAt),
    turnDrawn: watch.composer.drawn,
  });
  if (decided) {
    // A turn moved to another account (--on-limit failover) lists the moves, whatever ended it.
    const movedTo = moved(watch.limited);
    // A turn continued through usage limits says so (and names the last one).
    const { hits, last } = watch.limited;
    if (hits === 0 || last === null || decided.reason === "limited")
      return beginEvidence(s, now, { ...decided, evidence: { ...decided.evidence, ...movedTo } });
    const evidence = {
      ...decided.evidence,
      ...continued(hits),
      limit: decided.evidence.limit ?? last,
      ...movedTo,
    };
    return beginEvidence(s, now, { ...decided, evidence });
  }
  let input = watch.input;
  if (turn.status === "input" && turn.at !== input.index) input = { ...input, index: turn.at, seenAt: now };
  const drawing = turn.status === "input" && now - input.seenAt < PROMPT_DRAW.forMs;
  const pollMs = drawing
    ? PROMPT_DRAW.pollMs
    : watch.stopSeenAt !== null
      ? now - watch.stopSeenAt < HOLD_POLL.fastForMs
        ? HOLD_POLL.fastMs
        : HOLD_POLL.pollMs
      : safetyPollMs(s, now);
  return {
    state: { ...s, watch: { ...watch, input } },
    next: {
      kind: "sleep",
      ms: Math.max(1, Math.min(pollMs, config.deadline - now)),
      wake: true,
      progress: { elapsedMs: now - config.startedAt, turn: turn.status },
    },
  };
}

/** The safety net's period: 1 s, or 5 s in a quiet turn (QUIET). */
function safetyPollMs(s: Watching, now: number): number {
  const quiet = s.config.idleTimeoutMs === null && now - s.watch.changedAt >= QUIET.afterMs;
  return quiet ? QUIET.pollMs : POLL_MS;
}

function grown(s: Watching, now: number, changed: boolean): Watching {
  return changed ? { ...s, watch: { ...s.watch, changedAt: now } } : s;
}

function tmuxBound(config: Watching["config"], now: number): number {
  return Math.min(config.deadline, now + TMUX_BOUND_MS);
}

function done(s: Watching, reason: "aborted"): Step {
  return { state: s, next: { kind: "done", reason, evidence: {} } };
}
