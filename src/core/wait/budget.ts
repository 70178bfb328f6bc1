import type { BudgetSpent } from "../limits/limits.ts";
import { parseEvents } from "../worker/events.ts";
import { screenTail } from "../worker/screen.ts";
import type { Step, WaitObservation, WaitState } from "./types.ts";

/**
 * A turn's budget (`--max-tokens`, `-p --max-budget-usd`): once the running total crosses it, the
 * turn is stopped with the provider's interrupt keys (the worker stays usable), and the wait ends
 * `limited` with the budget as its window. The total is the provider's own: tokens from its turn
 * tracker over the transcript, cost from its telemetry (claude's statusline).
 */

/** After the interrupt, how long the turn may take to end (claude's Escape fires no hook; the screen says). */
const SETTLE_MS = 5000;
const POLL_MS = 100;
/**
 * The idle screen must hold this long: a frame between two tool calls looks idle too, and a wait that
 * ended on it left the worker busy for the next send (the e2e budget test, under load).
 */
const IDLE_CONFIRM_MS = 500;
const EVIDENCE_LINES = 25;

type Watching = Extract<WaitState, { phase: "watch" }>;
type Budgeting = Extract<WaitState, { phase: "budget" }>;

/** The budget the turn has crossed, or null. claude -p stops once cost ≥ --max-budget-usd. */
export function spentBudget(s: Watching): BudgetSpent | null {
  const { budget } = s.config;
  const { turn, transcript, costUsd } = s.watch;
  if (!budget || turn.status !== "running") return null;
  if (budget.maxTokens !== undefined && transcript.tokens !== null && transcript.tokens > budget.maxTokens)
    return { unit: "tokens", limit: budget.maxTokens, used: transcript.tokens };
  if (budget.maxCostUsd !== undefined && costUsd !== null) {
    const used = costUsd - (budget.costBaseUsd ?? 0);
    if (used >= budget.maxCostUsd) return { unit: "usd", limit: budget.maxCostUsd, used };
  }
  return null;
}

export function beginBudget(s: Watching, now: number, spent: BudgetSpent): Step {
  const state: Budgeting = {
    phase: "budget",
    config: s.config,
    watch: s.watch,
    spent,
    seen: s.watch.events.length,
    until: null,
    screen: null,
  };
  const keys = [...(s.config.provider.interruptKeys ?? ["Escape"])];
  return { state, next: { kind: "keys", keys, bound: Math.max(s.config.deadline, now + 100) } };
}

export function stepBudget(s: Budgeting, o: WaitObservation): Step {
  const { config } = s;
  switch (o.kind) {
    case "keys":
      return { state: { ...s, until: o.now + SETTLE_MS }, next: { kind: "read" } };
    case "read": {
      const events = parseEvents(config.provider, o.log, 0).slice(s.seen);
      const ended = events.some((e) => {
        const kind = config.provider.interpretEvent(e).kind;
        return kind === "stop" || kind === "interrupted" || kind === "failure";
      });
      // Ended by its hook: one last screen for the evidence, then done.
      const state = ended || o.aborted ? { ...s, until: o.now } : s;
      return { state, next: capture(state, o.now) };
    }
    case "screen": {
      const state = { ...s, screen: o.screen ?? s.screen };
      const screen = o.screen === null ? null : config.provider.classifyScreen(o.screen);
      const idle = screen?.kind === "ready" && config.provider.screenShowsStreaming !== false;
      const idleSince = idle ? (s.idleSince ?? o.now) : null;
      const confirmed = idleSince !== null && o.now - idleSince >= IDLE_CONFIRM_MS;
      // Ended by its hook (until reached): the screen is only evidence.
      if (confirmed || o.aborted || o.now >= (s.until ?? o.now)) return spent(state);
      return { state: { ...state, idleSince }, next: { kind: "sleep", ms: POLL_MS, wake: true } };
    }
    case "tick":
      return o.aborted ? spent(s) : { state: s, next: { kind: "read" } };
    default:
      return spent(s);
  }
}

function capture(s: Budgeting, now: number): Step["next"] {
  return { kind: "capture", bound: Math.max(s.config.deadline, now + 100) };
}

function spent(s: Budgeting): Step {
  const { unit, limit, used } = s.spent;
  const window = unit === "tokens" ? "max-tokens" : "max-budget-usd";
  const message =
    unit === "tokens"
      ? `the turn used ${used} tokens, over its budget of ${limit} (--max-tokens)`
      : `the turn cost $${used.toFixed(6)}, reaching its budget of $${limit} (--max-budget-usd)`;
  const promptId = s.watch.turn.status === "none" ? null : s.watch.turn.promptId;
  return {
    state: s,
    next: {
      kind: "done",
      reason: "limited",
      evidence: {
        promptId,
        limit: { window, resetsAt: null, message },
        budget: s.spent,
        detail: "umbel stopped the turn at its budget (the provider's interrupt); the worker is usable",
        screen: screenTail(s.screen ?? s.watch.screen, EVIDENCE_LINES),
      },
    },
  };
}
