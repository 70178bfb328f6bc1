import { z } from "zod";
import { choiceError } from "../common/suggest.ts";
import type { HookEvent } from "../providers/hook-event.ts";

/**
 * Subscription usage limits (docs/limits.md): the commonest way a worker stops. A provider says what
 * a limit looks like in its own records (the transcript, never the screen alone); the wait machine
 * ends such a turn `limited` (exit 120), or, with `--on-limit continue`, waits through the reset.
 */

export const OnLimit = z
  .enum(["stop", "continue", "failover"], { error: choiceError })
  .describe(
    "At a usage limit: stop (the turn ends limited, exit 120; claude's own auto-continue is turned off), continue (wait through the reset: claude continues by itself, codex and gemini are sent umbel's continuation prompt at the reset time) or failover (move the conversation to another account of the same provider with headroom and continue the turn there; none: limited with the earliest reset)",
  );
export type OnLimit = z.infer<typeof OnLimit>;

export const UsageLimit = z
  .object({
    window: z
      .string()
      .nullable()
      .describe(
        "The window that ran out, as the provider names it (five_hour, seven_day, primary, daily, …), or the budget (max-tokens, max-budget-usd); null when it does not say",
      ),
    resetsAt: z
      .string()
      .nullable()
      .describe("When the window resets (ISO 8601), when the provider says; null otherwise"),
    message: z
      .string()
      .nullable()
      .describe("The provider's own words (claude: You've hit your 5-hour limit …)"),
  })
  .describe("The usage limit that stopped the turn");
export type UsageLimit = z.infer<typeof UsageLimit>;

export const BudgetSpent = z
  .object({
    unit: z.enum(["tokens", "usd"]).describe("tokens (--max-tokens) or usd (--max-budget-usd)"),
    limit: z.number().describe("The budget that was given"),
    used: z.number().describe("What the turn had used when umbel stopped it (the provider's own count)"),
  })
  .describe("The caller's budget that stopped the turn (limited with window max-tokens / max-budget-usd)");
export type BudgetSpent = z.infer<typeof BudgetSpent>;

/**
 * What umbel sends a codex or gemini worker at the reset time under `--on-limit continue` (neither
 * continues by itself). claude's own words (2.1.332), minus "claude.ai": the model reads it as a
 * plain user message.
 */
export const CONTINUATION_PROMPT =
  "Your usage limit has reset. Continue the task you were working on when the limit was reached; do not repeat work that is already complete.";

/** How a provider's CLI records a turn a usage limit stopped (a member of the provider contract). */
export type ProviderLimits = {
  /** The limit that ended the turn of `promptId`, from the transcript; null: none (or not written yet). */
  read(transcript: string, promptId: string | null): UsageLimit | null;
  /**
   * A failure that may be a limit whose transcript line is still on its way: the machine holds it
   * briefly (claude: StopFailure `rate_limit` is also a plain 429's; the transcript tells them apart).
   */
  mayBe?(failure: { readonly error: string; readonly message: string | null }): boolean;
  /**
   * `--on-limit continue`: "self" (the CLI continues the turn by itself after the reset; umbel waits)
   * or "resend" (the CLI never does; umbel sends CONTINUATION_PROMPT once the reset time has passed).
   */
  readonly continues: "self" | "resend";
  /** self: the CLI arms its continuation only for a reset at most this far ahead (claude: 24 h). */
  readonly selfContinueWithinMs?: number;
  /** self: the event in which the CLI gives up continuing (claude: quota_auto_resume_disabled). */
  gaveUp?(event: HookEvent): boolean;
  /**
   * After a limit it will not continue, the CLI may open a box a moment later that must be closed
   * before it takes a prompt (claude's /rate-limit-options, ~1 s after StopFailure): the outcome's
   * evidence looks for it this long and presses its keys (ScreenState error with keys).
   */
  readonly boxAfterMs?: number;
  /**
   * A resumed session no longer holds the prompt of the turn a limit stopped (gemini 0.61.0 rolls
   * the failed turn's user message back): `--on-limit failover` sends that prompt again instead of
   * CONTINUATION_PROMPT, which would name a task the model no longer sees.
   */
  readonly dropsLimitedPrompt?: boolean;
};

/** Unix seconds (as providers record them) → ISO 8601; null for anything that is not a time. */
export function isoFromUnixSeconds(value: unknown): string | null {
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) return null;
  return new Date(value * 1000).toISOString();
}

/** ISO 8601 → milliseconds, or null. */
export function msOfIso(iso: string | null | undefined): number | null {
  if (!iso) return null;
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? null : ms;
}
