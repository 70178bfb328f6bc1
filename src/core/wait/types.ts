import type { FailoverMove, FailoverResult } from "../accounts/failover.ts";
import type { BudgetSpent, OnLimit, UsageLimit } from "../limits/limits.ts";
import type { RecordSource } from "../providers/transcript-types.ts";
import type { HookEvent, Provider, Stall, TurnSignal } from "../providers/types.ts";
import type { OutcomeReason } from "../schemas.ts";
import type { ExitRecord, OutcomeEvidence } from "./outcome.ts";
import type { TurnState } from "./turn.ts";

/**
 * `wait` as a pure state machine: `step(state, observation) → { state, next }`. The driver
 * (`src/operations/wait/wait.ts`) performs `next` (read the events, the transcript, probe tmux, capture
 * the screen, press keys, sleep until a file event or a poll) and feeds back what it saw, stamped
 * with the clock. Every rule about time — holding for the transcript, prompt-draw polling, the
 * idle composer, retry stalls, the idle timeout, the deadline, tmux hangs — lives here.
 */

export type WaitConfig = {
  readonly provider: Provider;
  /** Events before this line of the events log belong to earlier turns. */
  readonly baseline: number;
  readonly startedAt: number;
  /** The wait's deadline (ms, same clock): timeout at it, whatever tmux does. */
  readonly deadline: number;
  readonly idleTimeoutMs: number | null;
  /** UMBEL_RETRY_STALL_MS: overrides the provider's retry-stall bound. */
  readonly stallMs?: number | undefined;
  /** meta.json says the worker was killed: probe tmux at every wake. */
  readonly killed: boolean;
  /** At a usage limit: end limited (default), or wait through the reset (docs/limits.md). */
  readonly onLimit?: OnLimit | undefined;
  /** Stop the turn (the provider's interrupt) once it uses more than this: limited with the budget. */
  readonly budget?: WaitBudget | undefined;
};

export type WaitBudget = {
  /** Tokens of the turn (input + output + cache), from the provider's turn tracker. */
  readonly maxTokens?: number | undefined;
  /** USD since `costBaseUsd`, from the provider's telemetry (claude's statusline cost). */
  readonly maxCostUsd?: number | undefined;
  readonly costBaseUsd?: number | undefined;
};

/** What the driver does next. `bound` is when a tmux call is abandoned (a hung tmux). */
export type WaitCommand =
  /** The events log and the wrapper's exit record (and the statusline JSON, for a cost budget). */
  | { readonly kind: "read"; readonly statusLine?: boolean }
  /** The transcript's size, and its text when `wantText` and the size is not `knownSize`. */
  | {
      readonly kind: "read-transcript";
      readonly source: RecordSource;
      readonly wantText: boolean;
      readonly knownSize: number | null;
    }
  | { readonly kind: "probe"; readonly bound: number }
  /** `orRecorded`: the live pane with some scrollback, else the tombstone's last screen. */
  | { readonly kind: "capture"; readonly bound: number; readonly orRecorded?: boolean }
  | { readonly kind: "keys"; readonly keys: readonly string[]; readonly bound: number }
  /** `wake`: a file event in the worker's events folder ends the sleep early. */
  | { readonly kind: "sleep"; readonly ms: number; readonly wake: boolean; readonly progress?: WaitProgress }
  /** --on-limit continue (codex, gemini): send this prompt as `send` does; `sent` answers. */
  | { readonly kind: "send"; readonly prompt: string }
  /**
   * --on-limit failover: move the worker to another account of its provider with headroom (never one
   * in `left`, nor the one it is on), carry its session, relaunch it and continue the turn, all by
   * `until`; `failed-over` answers.
   */
  | {
      readonly kind: "failover";
      readonly limit: UsageLimit;
      readonly left: readonly (string | null)[];
      readonly until: number;
    }
  | { readonly kind: "done"; readonly reason: OutcomeReason; readonly evidence: OutcomeEvidence };

export type WaitProgress = {
  readonly elapsedMs: number;
  readonly turn: TurnState["status"];
  /** Waiting through a usage limit (--on-limit continue): the limit and its reset. */
  readonly limited?: UsageLimit;
  /** --on-limit failover: the worker is being moved to another account (after `limited`). */
  readonly failingOver?: boolean;
};

/** How the tmux pane looked: `unknown` when tmux failed or did not answer (never read as dead). */
export type PaneSeen = "alive" | "dead" | "gone" | "unknown";

/** What the driver saw, stamped with the clock and the abort signal. */
export type WaitObservation = { readonly now: number; readonly aborted: boolean } & (
  | { readonly kind: "tick" }
  | {
      readonly kind: "read";
      readonly log: string;
      readonly exit: ExitRecord | null;
      readonly statusLine?: string | null;
    }
  | { readonly kind: "transcript"; readonly size: number | null; readonly text: string | null }
  | { readonly kind: "pane"; readonly pane: PaneSeen }
  /** null: tmux failed, did not answer by the bound, or the session is gone. */
  | { readonly kind: "screen"; readonly screen: string | null }
  | { readonly kind: "keys" }
  /** The continuation prompt was taken (its baseline) or not (`error`). */
  | { readonly kind: "sent"; readonly baseline: number | null; readonly error: string | null }
  /** What the failover did: moved (the continued turn's baseline), not placed (no headroom), failed. */
  | { readonly kind: "failed-over"; readonly result: FailoverResult }
);

export type Step = { readonly state: WaitState; readonly next: WaitCommand };

/** Memory across wakes while the turn is watched. */
export type Watch = {
  readonly events: readonly HookEvent[];
  readonly logLength: number;
  readonly exit: ExitRecord | null;
  /** The hooks' view of the turn (before the transcript corrects it). */
  readonly hooked: TurnState;
  /** The corrected turn this wake decides on. */
  readonly turn: TurnState;
  readonly transcript: {
    readonly size: number | null;
    /** What the provider read in the transcript, for `endFor` (the turn's prompt id). */
    readonly end: TurnSignal | null;
    readonly endFor: string | null;
    /** The usage limit the transcript names for the turn (Provider.limits). */
    readonly limit: UsageLimit | null;
    /** The turn's tokens so far (a token budget only). */
    readonly tokens: number | null;
  };
  /** The session's cost as the provider last recorded it (a cost budget only). */
  readonly costUsd: number | null;
  /** Usage limits met by this turn (--on-limit continue), kept across a continuation prompt. */
  readonly limited: LimitMemory;
  readonly pane: { readonly dead: boolean; readonly gone: boolean; readonly checkedAt: number };
  /** When screen, events or transcript last changed (the idle timeout). */
  readonly activity: { readonly at: number; readonly fingerprint: string };
  /** The prompt the last input event asked about: when it was first seen, and whether it is answered. */
  readonly input: { readonly index: number; readonly seenAt: number; readonly answered: boolean };
  /**
   * Since when the screen has shown the idle composer while the hooks say the turn is on (counted
   * from the events log's last growth); `drawn`: this wait saw the TUI draw the turn (busy, or a
   * prompt box), so an idle composer after it is the turn's end, not a TUI that lags its hooks.
   */
  readonly composer: { readonly since: number | null; readonly checkedAt: number; readonly drawn: boolean };
  /** When the end-of-turn hook came while the transcript had not yet said how the turn ended. */
  readonly stopSeenAt: number | null;
  /** The error box's own keys were pressed (once). */
  readonly stopChosen: boolean;
  /** The last progress of a retrying turn (stall detection). */
  readonly progress: { readonly at: number; readonly key: string };
  /** This wake probed tmux (the idle fingerprint is taken then). */
  readonly probed: boolean;
  /** The last screen captured: the evidence when a final capture does not answer in time. */
  readonly screen: string | null;
  /** When the events log or the transcript last grew (a quiet turn is looked at less often). */
  readonly changedAt: number;
};

export type LimitMemory = {
  /** Distinct limit failures seen (each is one hit); the turn went on after all but the last. */
  readonly hits: number;
  /** Which failure is being waited through (a new one is a new hit): its turn and event. */
  readonly key: string | null;
  /** Continuation prompts umbel sent (codex, gemini). */
  readonly prompts: number;
  readonly last: UsageLimit | null;
  /** --on-limit failover: the moves so far, oldest first (kept across each move). */
  readonly moves: readonly FailoverMove[];
};

export type Decided = { readonly reason: OutcomeReason; readonly evidence: OutcomeEvidence };

export type WaitState =
  | { readonly phase: "watch"; readonly config: WaitConfig; readonly watch: Watch }
  /** The outcome is decided; the screen that shows it is being captured as evidence. */
  | {
      readonly phase: "evidence";
      readonly config: WaitConfig;
      readonly watch: Watch;
      readonly decided: Decided;
      readonly until: number;
      readonly bound: number;
      readonly screen: string | null;
      readonly needExit: boolean;
      /** The keys of a box that stands in the way were pressed (claude's /rate-limit-options menu). */
      readonly dismissed?: boolean;
      /** A limit's box may still come (ProviderLimits.boxAfterMs): an idle screen is final only after this. */
      readonly boxUntil?: number;
    }
  /** A budget spent: interrupt keys pressed, the turn's end (hook or idle screen) awaited. */
  | {
      readonly phase: "budget";
      readonly config: WaitConfig;
      readonly watch: Watch;
      readonly spent: BudgetSpent;
      readonly seen: number;
      readonly until: number | null;
      readonly screen: string | null;
      /** Since when the screen has been idle after the interrupt (null: not idle at the last look). */
      readonly idleSince?: number | null;
    }
  /** A retry stall: screen kept, interrupt keys pressed, the provider's end-of-turn hook awaited. */
  | {
      readonly phase: "stall";
      readonly config: WaitConfig;
      readonly watch: Watch;
      readonly stall: Extract<Stall, { stalled: true }>;
      readonly seen: number;
      readonly screen: string | null;
      readonly until: number | null;
    };
