import { CONTINUATION_PROMPT, msOfIso, type UsageLimit } from "../limits/limits.ts";
import { beginEvidence } from "./finish.ts";
import type { OutcomeEvidence } from "./outcome.ts";
import { gaveUpContinuing } from "./transcript.ts";
import type { TurnState } from "./turn.ts";
import type { LimitMemory, Step, WaitState, Watch } from "./types.ts";

/**
 * `--on-limit continue`: the limited turn is waited through, not reported. claude continues by
 * itself ~60 s (30-90 s) after the reset (at most 3 times, then quota_auto_resume_disabled); umbel
 * only watches, for as long as that can take. codex and gemini never continue: once the reset time
 * has passed, umbel sends CONTINUATION_PROMPT (the driver does it as `send` does) and follows the
 * new turn. Without a reset time, past the deadline, or past claude's own bounds, `limited` stands.
 */

/** After the reset, how long claude may take to continue: its re-arm back-off is 300 s (notes §1.7). */
const SELF_CONTINUE_GRACE_MS = 10 * 60_000;
/** Continuation prompts umbel sends for one wait at most (claude's own cap is 3 continuations). */
const MAX_CONTINUATION_PROMPTS = 3;
/** While waiting through a reset: how often to look (events wake the wait sooner). */
const LIMITED_POLL_MS = 1000;

type Watching = Extract<WaitState, { phase: "watch" }>;
type Limited = Extract<TurnState, { status: "failure" }> & { limit: UsageLimit };

export function isLimited(turn: TurnState): turn is Limited {
  return turn.status === "failure" && turn.limit !== undefined;
}

/**
 * The memory of limits met, with this failure counted once: one per StopFailure while claude
 * continues a turn by itself, one per turn umbel started with a continuation prompt (a failure read
 * from the transcript may first show while the hooks still say running).
 */
function remember(memory: LimitMemory, key: string, turn: Limited): LimitMemory {
  if (memory.key === key) return { ...memory, last: turn.limit };
  return { ...memory, hits: memory.hits + 1, key, last: turn.limit };
}

/** The next step while a limited turn is waited through, or the outcome that ends the wait. */
export function waitThroughLimit(s: Watching, now: number, turn: Limited): Step {
  const { config } = s;
  const self = config.provider.limits?.continues === "self";
  const limited = remember(s.watch.limited, `${config.baseline}:${self ? turn.at : ""}`, turn);
  const watch: Watch = { ...s.watch, limited };
  const next: Watching = { ...s, watch };
  const limits = config.provider.limits;
  const resetsAt = msOfIso(turn.limit.resetsAt);
  const stands = (detail: string): Step =>
    beginEvidence(next, now, {
      reason: "limited",
      evidence: limitedEvidence(turn, limited, detail),
    });
  if (watch.exit || watch.pane.dead || watch.pane.gone || config.killed)
    return beginEvidence(next, now, { reason: "dead", evidence: { exit: watch.exit } });
  if (now >= config.deadline)
    return beginEvidence(next, now, {
      reason: "timeout",
      evidence: {
        timeoutMs: config.deadline - config.startedAt,
        limit: turn.limit,
        detail: "still waiting for the usage limit to reset when the deadline came",
        ...continued(limited.hits - 1),
      },
    });
  if (!limits || resetsAt === null) return stands("the provider gave no reset time to continue at");
  if (resetsAt > config.deadline)
    return stands(`the limit resets at ${turn.limit.resetsAt}, after this wait's deadline`);
  const progress = { elapsedMs: now - config.startedAt, turn: turn.status, limited: turn.limit };
  if (limits.continues === "self") {
    const within = limits.selfContinueWithinMs ?? Number.POSITIVE_INFINITY;
    if (resetsAt - now > within)
      return stands(
        `${config.provider.displayName} continues by itself only before a reset ${within / 3_600_000} h ahead`,
      );
    if (gaveUpContinuing(config.provider, watch.events, config.baseline))
      return stands(`${config.provider.displayName} stopped continuing after repeated usage limits`);
    if (now > resetsAt + SELF_CONTINUE_GRACE_MS)
      return stands(`${config.provider.displayName} did not continue within 10 min of the reset`);
  } else if (limited.prompts >= MAX_CONTINUATION_PROMPTS) {
    return stands(`the limit came back after ${MAX_CONTINUATION_PROMPTS} continuation prompts`);
  } else if (now >= resetsAt) {
    return { state: next, next: { kind: "send", prompt: CONTINUATION_PROMPT } };
  }
  // tmux liveness now and then (a killed session writes no file); events end the sleep sooner.
  if (now - watch.pane.checkedAt >= LIMITED_POLL_MS)
    return { state: next, next: { kind: "probe", bound: Math.min(config.deadline, now + 2000) } };
  const until = limits.continues === "self" ? LIMITED_POLL_MS : resetsAt - now;
  return sleep(next, now, until, progress);
}

/** The continuation prompt was sent: follow the new turn from its baseline, or report why not. */
export function afterContinuation(
  s: Watching,
  now: number,
  baseline: number | null,
  error: string | null,
  fresh: Watch,
): Step {
  if (baseline === null) {
    const last = s.watch.limited.last;
    return beginEvidence(s, now, {
      reason: "limited",
      evidence: {
        ...(last ? { limit: last } : {}),
        detail: `the continuation prompt was not taken: ${error ?? "unknown"}`,
        ...continued(s.watch.limited.hits - 1),
      },
    });
  }
  return {
    state: {
      phase: "watch",
      config: { ...s.config, baseline },
      watch: { ...fresh, limited: { ...s.watch.limited, prompts: s.watch.limited.prompts + 1 } },
    },
    next: { kind: "read" },
  };
}

function limitedEvidence(turn: Limited, memory: LimitMemory, detail?: string): OutcomeEvidence {
  return {
    promptId: turn.promptId,
    error: turn.error,
    message: turn.message,
    limit: turn.limit,
    ...(detail ? { detail } : {}),
    ...continued(memory.hits - 1),
  };
}

/** `continued: n` when the turn went on through n limits (absent otherwise). */
export function continued(n: number): { continued?: number } {
  return n > 0 ? { continued: n } : {};
}

function sleep(
  s: Watching,
  now: number,
  ms: number,
  progress: { elapsedMs: number; turn: TurnState["status"]; limited: UsageLimit },
): Step {
  return {
    state: s,
    next: {
      kind: "sleep",
      ms: Math.max(1, Math.min(ms, LIMITED_POLL_MS, s.config.deadline - now)),
      wake: true,
      progress,
    },
  };
}
