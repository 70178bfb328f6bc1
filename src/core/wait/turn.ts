import { policyDecisionOf } from "../fleet/policy/compile.ts";
import type { UsageLimit } from "../limits/limits.ts";
import type { RecordSource } from "../providers/transcript-types.ts";
import type { HookEvent, Provider, TurnSignal } from "../providers/types.ts";

/**
 * Where the turn after a baseline stands, read from hook events alone (pure).
 * A turn has ended when the last end signal (stop / failure) came after every subagent it started
 * reported back: one human prompt with a background subagent gives two Stops, and the final Stop
 * may still list the finished agent as running (claude 2.1.332).
 */
export type TurnState =
  | { status: "none" }
  | {
      status: "running";
      promptId: string | null;
      submittedAt: number | null;
      outstanding: string[];
      /** A Stop came but the turn is held open (a background subagent's report is due). */
      sawStop?: boolean;
    }
  | { status: "input"; promptId: string | null; text: string; detail: string; at: number }
  | {
      status: "stop";
      promptId: string | null;
      message: string | null;
      at: number;
      /** The turn ended without an answer (codex Interrupt, gemini "Request cancelled."). */
      interrupted?: boolean;
      detail?: string;
    }
  | {
      status: "failure";
      promptId: string | null;
      error: string;
      message: string | null;
      at: number;
      /** A usage limit stopped the turn (read from the provider's records: `Provider.limits`). */
      limit?: UsageLimit;
    };

export function assessTurn(provider: Provider, events: readonly HookEvent[], baseline: number): TurnState {
  let promptId: string | null = null;
  let submittedAt: number | null = null;
  let state: TurnState = { status: "none" };
  const started = new Set<string>();
  const stopped = new Set<string>();
  let lastRunning: string[] = [];
  let lastSubagentStopAt = -1;
  /** Agents a Stop listed as running: each hands its report back in a turn of its own. */
  const listedRunning = new Set<string>();
  let reportTurns = 0;
  for (const event of events) {
    if (event.index < baseline) continue;
    // A permission request umbel's policy answered (hooks/hook.sh) never waited for a person.
    const signal: TurnSignal = policyDecisionOf(event)
      ? { kind: "progress" }
      : provider.interpretEvent(event);
    // The next human prompt starts the next turn: what follows it is not this turn's.
    if (signal.kind === "submitted" && signal.human && promptId !== null) break;
    switch (signal.kind) {
      case "submitted":
        if (signal.human || submittedAt === null) {
          promptId = signal.human ? signal.promptId : promptId;
          submittedAt ??= event.index;
        }
        if (!signal.human) reportTurns++;
        state = { status: "running", promptId, submittedAt, outstanding: [] };
        break;
      case "subagent-start":
        started.add(signal.id);
        break;
      case "subagent-stop":
        stopped.add(signal.id);
        if (started.has(signal.id)) lastSubagentStopAt = event.index;
        break;
      case "stop":
        lastRunning = signal.backgroundTasks;
        for (const id of signal.backgroundTasks) listedRunning.add(id);
        state = {
          status: "stop",
          promptId: promptId ?? signal.promptId,
          message: signal.message,
          at: event.index,
        };
        break;
      case "interrupted":
        lastRunning = [];
        state = {
          status: "stop",
          promptId: promptId ?? signal.promptId,
          message: null,
          at: event.index,
          interrupted: true,
          detail: signal.detail ?? "interrupted",
        };
        break;
      case "failure":
        lastRunning = [];
        state = {
          status: "failure",
          promptId: promptId ?? signal.promptId,
          error: signal.error,
          message: signal.message,
          at: event.index,
        };
        break;
      case "input":
        // The same prompt announced again keeps its text and place (and so its inputId).
        if (signal.repeats && state.status === "input") break;
        state = { status: "input", promptId, text: signal.text, detail: signal.detail, at: event.index };
        break;
      case "progress":
        if (state.status === "input") state = { status: "running", promptId, submittedAt, outstanding: [] };
        break;
      default:
        break;
    }
  }
  if (state.status === "stop") {
    const outstanding = [...started, ...lastRunning.filter((id) => !started.has(id))].filter(
      (id) => !stopped.has(id),
    );
    // A background task this turn never saw start (listed as running by the final Stop) is not waited for.
    const waitingFor = outstanding.filter((id) => started.has(id));
    if (waitingFor.length > 0)
      return { status: "running", promptId, submittedAt, outstanding: waitingFor, sawStop: true };
    // A subagent that stopped after the last Stop still hands its report to a turn of its own, whose
    // Stop ends the caller's turn. claude 2.1.332 fires SubagentStop before or after that turn's
    // UserPromptSubmit, and its hook may even land before the Stop that lists the agent as running.
    const reportsDue = [...listedRunning].filter((id) => started.has(id)).length;
    if (lastSubagentStopAt > state.at || reportTurns < reportsDue)
      return { status: "running", promptId, submittedAt, outstanding: [], sawStop: true };
  }
  return state;
}

/**
 * The turn as the transcript corrects it (codex: a failed turn fires no hook; gemini: AfterAgent
 * ends answers, API errors and cancels alike). A transcript "stop" never ends a turn the hooks say
 * is still on: the end-of-turn hook does that.
 */
export function applyTranscriptEnd(turn: TurnState, signal: TurnSignal | null): TurnState {
  if (signal === null || turn.status === "none") return turn;
  if (turn.status === "failure" || (turn.status === "stop" && turn.interrupted)) return turn;
  if (turn.status === "running" && turn.sawStop) return turn;
  const promptId = turn.promptId ?? null;
  const at = turn.status === "stop" || turn.status === "input" ? turn.at : -1;
  if (signal.kind === "failure")
    return { status: "failure", promptId, error: signal.error, message: signal.message, at };
  if (signal.kind === "interrupted")
    return {
      status: "stop",
      promptId,
      message: null,
      at,
      interrupted: true,
      detail: signal.detail ?? "interrupted",
    };
  // gemini's AfterAgent carries no usable text; the transcript's answer is the turn's message.
  if (signal.kind === "stop" && turn.status === "stop" && turn.message === null)
    return { ...turn, message: signal.message };
  return turn;
}

/**
 * The turn after the baseline as every verb sees it: the hooks' view corrected by the transcript
 * (a codex turn that failed fires no hook; gemini's AfterAgent ends answers and errors alike).
 */
export function correctTurn(provider: Provider, hooked: TurnState, transcript: string | null): TurnState {
  const read = provider.transcriptTurnEnd;
  const turn =
    !read || transcript === null || hooked.status === "none"
      ? hooked
      : applyTranscriptEnd(hooked, read(transcript, hooked.promptId));
  if (turn.status !== "failure" || transcript === null || !provider.limits) return turn;
  return withLimit(turn, provider.limits.read(transcript, turn.promptId));
}

/** A failed turn with the usage limit the provider's records name (a limit never ends a turn by itself). */
export function withLimit(turn: TurnState, limit: UsageLimit | null): TurnState {
  if (turn.status !== "failure" || limit === null || turn.limit) return turn;
  return { ...turn, limit };
}

/** The index of the last human prompt submission, the default baseline for `wait` and `read`. */
export function lastSubmitIndex(provider: Provider, events: readonly HookEvent[]): number | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    if (!event) continue;
    const signal = provider.interpretEvent(event);
    if (signal.kind === "submitted" && signal.human) return event.index;
  }
  return null;
}

/** The transcript path the provider announced (SessionStart or any later payload carrying it). */
export function findTranscriptPath(
  provider: Pick<Provider, "hookWire">,
  events: readonly HookEvent[],
): string | null {
  return findLatest(events, provider.hookWire.transcriptPath);
}

/** The session record the hooks announced, as the provider reads it (a file unless it says otherwise). */
export function findRecordSource(
  provider: Pick<Provider, "hookWire" | "recordSource">,
  events: readonly HookEvent[],
): RecordSource | null {
  const locator = findTranscriptPath(provider, events);
  if (locator === null) return null;
  return provider.recordSource?.(locator, findSessionId(provider, events)) ?? { kind: "file", path: locator };
}

export function findSessionId(
  provider: Pick<Provider, "hookWire">,
  events: readonly HookEvent[],
): string | null {
  return findLatest(events, provider.hookWire.sessionId);
}

function findLatest(
  events: readonly HookEvent[],
  read: (payload: HookEvent["payload"]) => string | null,
): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const event = events[i];
    const value = event ? read(event.payload) : null;
    if (value) return value;
  }
  return null;
}
