import { isRecord, parseJsonObject } from "../../common/json.ts";
import { isoFromUnixSeconds, type ProviderLimits, type UsageLimit } from "../../limits/limits.ts";
import { findCodexTurnEnd } from "./transcript.ts";

/**
 * codex 0.171.0 at a usage limit (shared notes, limits.md §2): a 429 whose body's `error.type` is
 * `usage_limit_reached` ends the turn at once, never retried and never continued. No hook fires
 * (UserPromptSubmit only): the rollout's `task_complete` with `codex_error_info:
 * "usage_limit_exceeded"` is the record (also for `usage_not_included` and `insufficient_quota`).
 * When the answer carried `x-codex-primary-*` headers, a `token_count` line before it holds the
 * windows (`rate_limits.primary/secondary`: used_percent, window_minutes, resets_at in unix seconds).
 */
export const codexLimits: ProviderLimits = {
  read: readCodexLimit,
  continues: "resend",
  // "Approaching rate limits" (switch model?) opens after the error line when the 429 said 100 %.
  boxAfterMs: 3000,
};

const LIMIT_KIND = "usage_limit_exceeded";

export function readCodexLimit(transcript: string, turnId: string | null): UsageLimit | null {
  const end = findCodexTurnEnd(transcript, turnId);
  if (end.status !== "failed" || end.errorKind !== LIMIT_KIND) return null;
  const window = exhaustedWindow(transcript, end.turnId);
  return { window: window?.name ?? null, resetsAt: window?.resetsAt ?? null, message: end.error };
}

type Window = { name: string; resetsAt: string | null };

/** The window at 100 % in the turn's last rate-limit snapshot (codex names them primary and secondary). */
function exhaustedWindow(transcript: string, turnId: string): Window | null {
  let inTurn = false;
  let limits: Record<string, unknown> | null = null;
  for (const line of transcript.split("\n")) {
    const record = parseJsonObject(line);
    const p = record && isRecord(record.payload) ? record.payload : null;
    if (record?.type !== "event_msg" || !p) continue;
    if (p.type === "task_started") inTurn = p.turn_id === turnId;
    else if (inTurn && p.type === "token_count" && isRecord(p.rate_limits)) limits = p.rate_limits;
  }
  if (!limits) return null;
  for (const name of ["primary", "secondary"]) {
    const w = limits[name];
    if (isRecord(w) && typeof w.used_percent === "number" && w.used_percent >= 100)
      return { name, resetsAt: isoFromUnixSeconds(w.resets_at) };
  }
  return null;
}
