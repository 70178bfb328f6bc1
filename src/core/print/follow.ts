import type { TurnSummary } from "../providers/transcript-types.ts";
import type { Outcome } from "../wait/outcome.ts";

/**
 * `umbel -p`'s follow of one turn as a pure machine: what `--max-turns` does at each transcript
 * summary, when the drain after the turn's end is done, and whether the turn was ours to stop. The
 * driver (operations/print/follow.ts) only reads the transcript, feeds the summaries in and carries
 * out the actions.
 *
 * claude -p lets the model run N API turns, runs the tools of the Nth, and stops before asking
 * again. The interactive TUIs ignore the flag, so umbel stops the turn itself with the provider's
 * halt hooks (events/halt-<Event>.json, printed by hooks/hook.sh):
 * - "hook" (claude, gemini): armed once the Nth assistant message appears, the hook after the next
 *   tool answers `{"continue":false}` and the CLI stops right after that tool (its transcript ends on
 *   a tool_use message). If the halt came too late (an N+1th message appears), Escape interrupts instead.
 * - "interrupt" (codex): once the Nth message's tool results have all landed, umbel arms the halt
 *   hooks (PreToolUse denies every call, so a next response already on its way runs no tool) and
 *   presses the interrupt keys. A message that still lands is interrupted again.
 * A turn that ends on its own first keeps its answer (the Nth message was the final one).
 */

export type HaltMode = "hook" | "interrupt";

export type HaltState = {
  /** The halt hooks are armed (before the prompt, with --max-turns 1 on a "hook" provider). */
  readonly armed: boolean;
  /** umbel stopped the turn (or pressed keys to). */
  readonly halted: boolean;
  /** "interrupt": the message count at the last interrupt (a later message is interrupted again). */
  readonly interruptedAt: number;
};

/**
 * `arm`: write the halt hooks · `escape`: press Escape (a "hook" halt that came too late) ·
 * `interrupt`: press the provider's interrupt keys · `stop-wait`: the turn is over for -p, stop waiting.
 */
export type HaltAction = "arm" | "escape" | "interrupt" | "stop-wait";

export type FollowSummary = Pick<
  TurnSummary,
  "assistantMessages" | "complete" | "stopReason" | "toolsPending"
>;

export function initialHalt(preArmed: boolean): HaltState {
  return { armed: preArmed, halted: false, interruptedAt: 0 };
}

/** The next state and the actions, in order, after the transcript said `s`. */
export function stepHalt(
  mode: HaltMode,
  maxTurns: number | undefined,
  state: HaltState,
  s: FollowSummary,
): { state: HaltState; actions: readonly HaltAction[] } {
  const none = { state, actions: [] };
  if (maxTurns === undefined) return none;
  if (mode === "hook") {
    if (state.halted) return none;
    const arming = !state.armed && s.assistantMessages >= maxTurns;
    const armed = state.armed || arming;
    const actions: HaltAction[] = arming ? ["arm"] : [];
    // The CLI stopped after the Nth message's tools (its last message asked for them), or went on
    // past the Nth. A turn that ended with an answer (end_turn) is not ours to stop: its end marker
    // can land before the wait has seen its Stop hook (gemini writes the answer before AfterAgent).
    const stoppedAfterTools = s.complete && s.stopReason === "tool_use";
    if (armed && (stoppedAfterTools || s.assistantMessages > maxTurns)) {
      if (!s.complete) actions.push("escape");
      actions.push("stop-wait");
      return { state: { ...state, armed, halted: true }, actions };
    }
    return { state: { ...state, armed }, actions };
  }
  if (s.complete || s.assistantMessages < maxTurns || s.assistantMessages <= state.interruptedAt) return none;
  const toolsDone = s.stopReason === "tool_use" && s.toolsPending === 0;
  if (!toolsDone && s.assistantMessages <= maxTurns) return none;
  return {
    state: { armed: true, halted: true, interruptedAt: s.assistantMessages },
    actions: ["arm", "interrupt"],
  };
}

/** Why the drain after the wait may end: what the wait ended with, and what the transcript holds. */
export type DrainCheck = {
  readonly outcome: Outcome | undefined;
  /** A guarded turn that umbel's own guard halted: its end still drains the transcript. */
  readonly guardHalted: boolean;
  readonly summary: Pick<TurnSummary, "complete" | "apiError" | "timingsPending"> | null;
  /** The text of the last assistant line followed. */
  readonly lastText: string;
  readonly now: number;
  /** When the drain gives up (the transcript may lag the hook that ended the turn). */
  readonly until: number;
  /**
   * A turn that ended without its end hook (interrupted, a prompt denied with keys) needs no drain:
   * ACP's client has had every message that came, and claude writes nothing more for it but the
   * interrupt's own line. -p keeps draining such a turn (its output ends with every line it wrote).
   */
  readonly skipInterrupted?: boolean;
};

/**
 * Whether the drain after the turn's end is done: up to the end marker (or an API error) after a
 * stop; at once after an outcome that gets no more lines. A stop whose hook gave the answer is done
 * once the transcript holds that answer and every answer's request time: claude 2.1.332 writes the
 * answer before Stop, then its bookkeeping lines and turn_duration 150-370 ms later (measured on the
 * stub), which no -p output uses; an api-request line can come after the answer (seen under load).
 */
export function drainDone(c: DrainCheck): boolean {
  if (!(endsWithLines(c.outcome) || c.guardHalted)) return true;
  if (c.now >= c.until) return true;
  if (c.skipInterrupted === true && c.outcome?.evidence.interrupted === true) return true;
  const s = c.summary;
  if (s?.complete === true || (s?.apiError !== null && s?.apiError !== undefined)) return true;
  const hookAnswer = c.outcome?.reason === "stop" ? (c.outcome.evidence.message ?? null) : null;
  return (
    hookAnswer !== null &&
    hookAnswer.trim() !== "" &&
    c.lastText.trimEnd().endsWith(hookAnswer.trimEnd()) &&
    (s?.timingsPending ?? 0) === 0
  );
}

/** Outcomes after which the transcript still gets the turn's last lines. */
function endsWithLines(outcome: Outcome | undefined): boolean {
  return outcome?.reason === "stop" || outcome?.reason === "provider-error";
}

/**
 * --max-turns' value when umbel's halt is what ended the turn, else null: a stop that came first
 * wins (the Nth message was the final answer; claude -p: success), and the caller's own abort is not ours.
 */
export function maxTurnsHit(
  state: HaltState,
  outcome: Outcome,
  callerAborted: boolean,
  maxTurns: number | undefined,
): number | null {
  const stoppedByUs =
    (outcome.reason === "aborted" && !callerAborted) ||
    (outcome.reason === "stop" && outcome.evidence.interrupted === true);
  return state.halted && stoppedByUs ? (maxTurns ?? null) : null;
}
