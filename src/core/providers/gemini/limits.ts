import type { ProviderLimits, UsageLimit } from "../../limits/limits.ts";
import { findGeminiTurnError } from "./transcript.ts";

/**
 * gemini-cli 0.61.0 at a usage limit (shared notes, limits.md §3): a terminal quota error
 * (`TerminalQuotaError`) opens the "Usage limit reached" box and fires no hook; once umbel chooses
 * Stop, gemini writes the error line to its chat file and fires AfterAgent. The error line's words
 * are gemini's own, one per case:
 * - a daily quota (QuotaFailure with a PerDay id): `You have exhausted your daily quota on this model.`
 *   — no reset time;
 * - a RetryInfo over 300 s: `You exceeded your current quota. Please retry in 3600s.`;
 * - Code Assist (Google sign-in): `Quota exceeded for this model. Your quota will reset after 1h0m0s.`
 * It never continues by itself ("Keep trying" sends one request at once, then asks again).
 */
// 0.61.0 rolls a failed turn's user message back: a session resumed after a limit has no trace of
// the prompt (measured through a failover on the stub: the next request held the turns before only).
export const geminiLimits: ProviderLimits = {
  read: readGeminiLimit,
  continues: "resend",
  dropsLimitedPrompt: true,
};

const DAILY = /exhausted your daily quota/i;
const QUOTA = /exhausted your daily quota|exceeded your current quota|Quota exceeded for|quota will reset/i;
const RETRY_IN = /Please retry in (\d+(?:\.\d+)?)s/;
const RESET_AFTER = /quota will reset after ((?:\d+h)?(?:\d+m)?(?:\d+(?:\.\d+)?s)?)/;

export function readGeminiLimit(transcript: string, turnKey: string | null): UsageLimit | null {
  const error = findGeminiTurnError(transcript, turnKey);
  if (!error || !QUOTA.test(error.text)) return null;
  const at = error.timestamp === null ? Number.NaN : Date.parse(error.timestamp);
  const retryIn = RETRY_IN.exec(error.text)?.[1];
  const resetAfter = RESET_AFTER.exec(error.text)?.[1];
  const waitMs =
    retryIn !== undefined ? Number(retryIn) * 1000 : resetAfter ? durationMs(resetAfter) : Number.NaN;
  const resetsAt = Number.isNaN(at) || Number.isNaN(waitMs) ? null : new Date(at + waitMs).toISOString();
  return { window: DAILY.test(error.text) ? "daily" : null, resetsAt, message: error.text };
}

/** "1h0m0s" → 3,600,000 (Go's duration text, as Code Assist writes it). */
function durationMs(text: string): number {
  const part = (unit: string) => Number(new RegExp(`(\\d+(?:\\.\\d+)?)${unit}`).exec(text)?.[1] ?? 0);
  const ms = (part("h") * 3600 + part("m") * 60 + part("s")) * 1000;
  return ms > 0 ? ms : Number.NaN;
}
