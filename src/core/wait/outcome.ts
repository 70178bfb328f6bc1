import { z } from "zod";
import { FailoverMove } from "../accounts/failover.ts";
import { EXIT } from "../errors.ts";
import { inputIdOf } from "../fleet/answer.ts";
import { SentFromQueue } from "../fleet/queue.ts";
import { Attempt } from "../guard/record.ts";
import { BudgetSpent, UsageLimit } from "../limits/limits.ts";
import { Telemetry } from "../limits/telemetry.ts";
import { OutcomeReason } from "../schemas.ts";
import { composerEndsTurn } from "./composer.ts";
import type { TurnState } from "./turn.ts";

export const ExitRecord = z
  .object({
    exitCode: z.number().int().optional().describe("The CLI's exit status"),
    signal: z.string().optional().describe("The signal that ended it (e.g. KILL), when one did"),
  })
  .describe("How the CLI exited: its status, and the signal when one killed it");
export type ExitRecord = z.infer<typeof ExitRecord>;

export const OutcomeEvidence = z
  .object({
    promptId: z.string().nullable().optional().describe("The id of the prompt whose turn this was"),
    message: z
      .string()
      .nullable()
      .optional()
      .describe("The turn's final message (umbel_wait cuts it to 2000 characters; read has it all)"),
    messageTruncated: z
      .boolean()
      .optional()
      .describe("`message` was cut (umbel_wait only); read returns the whole answer"),
    error: z.string().optional().describe("The provider's error kind (provider-error)"),
    prompt: z.string().optional().describe("What the worker is asking (input)"),
    inputId: z
      .string()
      .optional()
      .describe("The id of that very prompt (input): answer --input-id refuses once it is gone"),
    detail: z.string().optional().describe("More on the outcome: the kind of prompt, how a turn ended"),
    exit: ExitRecord.nullable().optional(),
    screen: z.string().optional().describe("The last lines of the worker's screen"),
    stillForMs: z.number().optional().describe("How long nothing moved (idle)"),
    timeoutMs: z.number().optional().describe("The timeout that passed (timeout)"),
    interrupted: z
      .boolean()
      .optional()
      .describe(
        "The turn ended without its end-of-turn hook (Escape, or a permission prompt denied with keys)",
      ),
    structured: z
      .unknown()
      .optional()
      .describe("The object the turn returned through StructuredOutput (stop with --json-schema)"),
    errors: z
      .array(z.string())
      .optional()
      .describe("Why the last StructuredOutput call was refused: its schema validation errors (rejected)"),
    attempts: z
      .array(Attempt)
      .optional()
      .describe("Every attempt of a guarded turn (--json-schema, --accept): its checks and their output"),
    limit: UsageLimit.optional().describe(
      "The usage limit that stopped the turn (limited; with --on-limit continue, the last one waited through)",
    ),
    budget: BudgetSpent.optional(),
    continued: z
      .number()
      .int()
      .optional()
      .describe("--on-limit continue: how many usage limits the turn was continued through"),
    failover: z
      .array(FailoverMove)
      .optional()
      .describe(
        "--on-limit failover: each move of the worker to another account of its provider during this wait, oldest first",
      ),
    earliestReset: z
      .string()
      .nullable()
      .optional()
      .describe(
        "--on-limit failover with no account left with headroom (limited): the earliest reset across the provider's accounts (ISO 8601); null when none says",
      ),
  })
  .describe("What shows the outcome; which fields are set depends on `reason`");
export type OutcomeEvidence = z.infer<typeof OutcomeEvidence>;

/** The telemetry a wait hands back, and whether it is the turn's own. */
const TurnTelemetry = Telemetry.extend({
  settled: z
    .boolean()
    .describe(
      "The numbers are this turn's final ones; false: the turn has not ended (input, timeout, …) or the provider's records had not caught up with it in 2 s (claude's statusline)",
    ),
});

/** What `wait` returns: exactly one outcome of the turn. */
export const Outcome = z.object({
  reason: OutcomeReason.describe(
    "stop: the turn ended · rejected: a guardrail never held · input: needs a person · limited: a usage limit or budget stopped it · provider-error · idle · timeout · dead · aborted",
  ),
  exitCode: z.number().int().describe("The CLI's exit code for this outcome (0 stop, 120-126, 130)"),
  name: z.string().describe("Worker name"),
  baseline: z.number().int().describe("The baseline the turn was followed from"),
  elapsedMs: z.number().describe("How long the wait took"),
  evidence: OutcomeEvidence,
  telemetry: TurnTelemetry.nullable()
    .optional()
    .describe(
      "`wait` only: the worker's tokens, cost and windows as its records stand once the turn's own numbers are in (what `status` shows right after); null: the provider records none",
    ),
  next: SentFromQueue.optional(),
});
export type Outcome = z.infer<typeof Outcome>;

export const OUTCOME_EXIT: Record<OutcomeReason, number> = {
  stop: EXIT.ok,
  rejected: EXIT.rejected,
  "provider-error": EXIT.providerError,
  idle: EXIT.idle,
  timeout: EXIT.timeout,
  dead: EXIT.dead,
  input: EXIT.input,
  aborted: EXIT.aborted,
  limited: EXIT.limited,
};

/** Everything `wait` knows at one instant. Times are milliseconds from an injected clock. */
export type WaitSnapshot = {
  readonly turn: TurnState;
  readonly exit: ExitRecord | null;
  readonly paneDead: boolean;
  /** The session is gone from tmux (killed, or the tmux server died). */
  readonly sessionGone: boolean;
  readonly now: number;
  readonly startedAt: number;
  readonly deadline: number;
  /** When screen, events or transcript last changed. */
  readonly lastActivityAt: number;
  readonly idleTimeoutMs: number | null;
  /**
   * The last event asked for input but the screen has moved past the prompt: it was answered (claude
   * fires nothing between the answer and the end of the tool it allowed, which may take minutes).
   */
  readonly inputAnswered?: boolean;
  /**
   * How long the screen has shown the idle composer while the hooks say the turn is still on, or
   * null. An interrupt (Escape) or a prompt denied with keys ends a claude turn with no hook at all.
   */
  readonly readyForMs?: number | null;
  /**
   * The wait saw the TUI draw this turn (busy, or a prompt box). A TUI lags its hooks on loaded
   * cores: claude 2.1.332 kept the submitted prompt in its box, no spinner, for over 2 s after
   * UserPromptSubmit at load ~13, and opencode showed its last turn's idle screen. Absent: drawn.
   */
  readonly turnDrawn?: boolean;
};

/**
 * Exactly one outcome, or null to keep waiting. Order: a turn that ended is reported as ended even if
 * the worker died afterwards; death beats a pending prompt; the deadline beats stillness.
 */
export function decideOutcome(s: WaitSnapshot): { reason: OutcomeReason; evidence: OutcomeEvidence } | null {
  const t = s.turn;
  if (t.status === "stop") {
    const evidence: OutcomeEvidence = { promptId: t.promptId, message: t.message };
    if (t.interrupted) Object.assign(evidence, { interrupted: true, detail: t.detail ?? "interrupted" });
    return { reason: "stop", evidence };
  }
  if (t.status === "failure" && t.limit) {
    return {
      reason: "limited",
      evidence: { promptId: t.promptId, error: t.error, message: t.message, limit: t.limit },
    };
  }
  if (t.status === "failure") {
    return {
      reason: "provider-error",
      evidence: { promptId: t.promptId, error: t.error, message: t.message },
    };
  }
  if (s.exit || s.paneDead || s.sessionGone) return { reason: "dead", evidence: { exit: s.exit } };
  const hookless =
    (t.status === "running" && !t.sawStop && t.outstanding.length === 0) ||
    (t.status === "input" && s.inputAnswered);
  // A prompt the hooks announced comes after the turn was drawn (the lag is at a turn's start).
  const drawn = s.turnDrawn !== false || t.status === "input";
  if (hookless && composerEndsTurn(drawn, s.readyForMs ?? 0)) {
    return {
      reason: "stop",
      evidence: {
        promptId: t.promptId,
        message: null,
        interrupted: true,
        detail: "the turn ended without an end-of-turn hook (interrupted, or a prompt denied with keys)",
      },
    };
  }
  if (t.status === "input" && !s.inputAnswered)
    return { reason: "input", evidence: { prompt: t.text, detail: t.detail, inputId: inputIdOf(t) } };
  if (s.now >= s.deadline) return { reason: "timeout", evidence: { timeoutMs: s.deadline - s.startedAt } };
  if (s.idleTimeoutMs !== null && s.now - s.lastActivityAt >= s.idleTimeoutMs) {
    return { reason: "idle", evidence: { stillForMs: s.now - s.lastActivityAt } };
  }
  return null;
}
