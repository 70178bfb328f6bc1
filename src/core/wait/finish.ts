import type { ScreenState, Stall } from "../providers/types.ts";
import { parseEvents } from "../worker/events.ts";
import { screenTail } from "../worker/screen.ts";
import type { OutcomeEvidence } from "./outcome.ts";
import type { Decided, Step, WaitObservation, WaitState } from "./types.ts";

/**
 * claude's hooks run before its TUI catches up: PermissionRequest ~50 ms before the prompt is drawn,
 * StopFailure 15-150 ms before the error line and the idle screen (2.1.332). Evidence is the screen
 * once it shows what the hook said, or the last one seen after this long.
 */
const EVIDENCE_MS = 1500;
const EVIDENCE_POLL_MS = 50;
/** While a limit's box may still open over an idle screen: look this often. */
const BOX_POLL_MS = 200;
/**
 * A timeout's screen may cost this much past the deadline (a healthy tmux answers in ~5 ms; a hung
 * one must not stretch the deadline: the outcome goes without its screen instead).
 */
const EVIDENCE_GRACE_MS = 100;
/** After interrupting a retry stall, how long gemini may take to roll back and fire AfterAgent. */
const STALL_SETTLE_MS = 5000;
const STALL_POLL_MS = 100;
/** Lines of screen kept as evidence. */
const EVIDENCE_LINES = 25;

type Watching = Extract<WaitState, { phase: "watch" }>;
type Evidence = Extract<WaitState, { phase: "evidence" }>;
type Stalling = Extract<WaitState, { phase: "stall" }>;

/** A clean stop needs no screen; everything else is reported with the screen that shows it. */
export function beginEvidence(s: Watching, now: number, decided: Decided): Step {
  if (decided.reason === "stop") return { state: s, next: { kind: "done", ...decided } };
  const boxAfter = limitedByProvider(decided) ? (s.config.provider.limits?.boxAfterMs ?? 0) : 0;
  const state: Evidence = {
    phase: "evidence",
    config: s.config,
    watch: s.watch,
    decided,
    until: now + Math.max(EVIDENCE_MS, boxAfter + EVIDENCE_MS),
    ...(boxAfter > 0 ? { boxUntil: now + boxAfter } : {}),
    bound: Math.max(s.config.deadline, now + EVIDENCE_GRACE_MS),
    screen: null,
    needExit: decided.reason === "dead" && s.watch.exit === null,
  };
  return { state, next: captureFor(state) };
}

export function stepEvidence(s: Evidence, o: WaitObservation): Step {
  switch (o.kind) {
    case "screen": {
      const state = { ...s, screen: o.screen };
      const seen = o.screen === null ? null : s.config.provider.classifyScreen(o.screen);
      // claude (2.1.332) opens /rate-limit-options after a limit it will not continue by itself: its
      // "Stop and wait for limit to reset" closes the menu and leaves the worker usable.
      if (s.decided.reason === "limited" && seen?.kind === "error" && seen.keys && !s.dismissed)
        return {
          state: { ...state, dismissed: true },
          next: { kind: "keys", keys: [...seen.keys], bound: s.bound },
        };
      // An idle screen is not final while the limit's box may still open (unless it was closed).
      const boxDue = s.boxUntil !== undefined && !s.dismissed && o.now < s.boxUntil;
      const shows = seen !== null && accepts(s.decided, seen) && !boxDue;
      if (shows || !waitsForScreen(s.decided) || o.now >= s.until || o.now >= s.bound || o.aborted)
        return conclude(state);
      return { state, next: { kind: "sleep", ms: boxDue ? BOX_POLL_MS : EVIDENCE_POLL_MS, wake: false } };
    }
    case "tick":
      return { state: s, next: captureFor(s) };
    case "read":
      return conclude({ ...s, watch: { ...s.watch, exit: o.exit }, needExit: false });
    case "keys":
      return { state: s, next: { kind: "sleep", ms: EVIDENCE_POLL_MS, wake: false } };
    default:
      return conclude(s);
  }
}

function captureFor(s: Evidence): Step["next"] {
  return waitsForScreen(s.decided)
    ? { kind: "capture", bound: s.bound }
    : { kind: "capture", bound: s.bound, orRecorded: true };
}

/** input, provider-error and limited wait (briefly) for the screen to catch up with the hook. */
function waitsForScreen(decided: Decided): boolean {
  return decided.reason === "input" || decided.reason === "provider-error" || limitedByProvider(decided);
}

function accepts(decided: Decided, screen: ScreenState): boolean {
  if (decided.reason === "input") return screen.kind === "input";
  if (decided.reason === "provider-error") return screen.kind !== "busy";
  if (limitedByProvider(decided)) return screen.kind === "ready";
  return true;
}

/** A provider's limit (not a budget, whose own phase already waited for the screen). */
function limitedByProvider(decided: Decided): boolean {
  return decided.reason === "limited" && decided.evidence.budget === undefined;
}

function conclude(s: Evidence): Step {
  if (s.needExit) return { state: s, next: { kind: "read" } };
  const screen = s.screen ?? s.watch.screen;
  const evidence: OutcomeEvidence = { ...s.decided.evidence, screen: screenTail(screen, EVIDENCE_LINES) };
  if (s.decided.reason === "dead") evidence.exit = s.watch.exit;
  return { state: s, next: { kind: "done", reason: s.decided.reason, evidence } };
}

/**
 * A turn that only retries (gemini: persistent 5xx/429 or an unreachable server, for ever): keep the
 * screen as evidence, interrupt it (gemini rolls the prompt back and fires AfterAgent, so the worker
 * stays usable), give that AfterAgent a moment, and report provider-error by umbel's own deadline.
 */
export function beginStall(
  s: Watching,
  now: number,
  stall: Extract<Stall, { stalled: true }>,
  seen: number,
): Step {
  const state: Stalling = {
    phase: "stall",
    config: s.config,
    watch: s.watch,
    stall,
    seen,
    screen: null,
    until: null,
  };
  return { state, next: { kind: "capture", bound: Math.max(s.config.deadline, now + EVIDENCE_GRACE_MS) } };
}

export function stepStall(s: Stalling, o: WaitObservation): Step {
  const { config } = s;
  switch (o.kind) {
    case "screen":
      return {
        state: { ...s, screen: o.screen },
        next: {
          kind: "keys",
          keys: [...(config.provider.interruptKeys ?? ["Escape"])],
          bound: Math.max(config.deadline, o.now + EVIDENCE_GRACE_MS),
        },
      };
    case "keys":
      return { state: { ...s, until: o.now + STALL_SETTLE_MS }, next: { kind: "read" } };
    case "read": {
      const events = parseEvents(config.provider, o.log, config.baseline);
      const stopped = events.slice(s.seen).some((e) => config.provider.interpretEvent(e).kind === "stop");
      if (stopped || o.aborted || o.now >= (s.until ?? o.now)) return stalled(s);
      return { state: s, next: { kind: "sleep", ms: STALL_POLL_MS, wake: true } };
    }
    case "tick":
      return o.aborted ? stalled(s) : { state: s, next: { kind: "read" } };
    default:
      return stalled(s);
  }
}

function stalled(s: Stalling): Step {
  return {
    state: s,
    next: {
      kind: "done",
      reason: "provider-error",
      evidence: {
        error: s.stall.error,
        detail: `retry stall: ${s.stall.attempts} model attempts, no answer`,
        screen: screenTail(s.screen ?? s.watch.screen, EVIDENCE_LINES),
      },
    },
  };
}
