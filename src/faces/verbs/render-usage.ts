import type { BillingRoute } from "../../core/limits/billing.ts";
import type { RateWindow, Telemetry, TokenCounts } from "../../core/limits/telemetry.ts";

/** Pure renderers for a worker's usage: its billing route, telemetry and subscription windows. */

/** The lines `status NAME` adds (aligned like its other fields). */
export function renderUsageLines(s: {
  billing?: BillingRoute | undefined;
  onLimit?: string | undefined;
  account?: string | null | undefined;
  telemetry?: Telemetry | null | undefined;
}): string[] {
  const lines: string[] = [];
  if (s.account) lines.push(`account:  ${s.account}`);
  if (s.billing) lines.push(`billing:  ${renderBilling(s.billing)}`);
  if (s.onLimit) lines.push(`on-limit: ${s.onLimit}`);
  const t = s.telemetry;
  if (!t) return lines;
  lines.push(`turns:    ${t.turns}`);
  if (t.lastTurn) lines.push(`last:     ${renderTokens(t.lastTurn)}`);
  lines.push(`total:    ${renderTokens(t.total)}`);
  if (t.contextUsedPercent !== null) lines.push(`context:  ${t.contextUsedPercent}% used`);
  lines.push(
    `cost:     ${t.costUsd === null ? `- (${t.missing.costUsd ?? "not recorded"})` : `$${t.costUsd.toFixed(4)}`}`,
  );
  for (const w of t.windows)
    lines.push(`window:   ${w.name} ${w.usedPercent}% used${w.resetsAt ? `, resets ${w.resetsAt}` : ""}`);
  return lines;
}

function renderBilling(b: BillingRoute): string {
  return b.via.length > 0 ? `${b.route} (${b.via.join(", ")})` : b.route;
}

function renderTokens(t: TokenCounts): string {
  return `${t.total} tokens (in ${t.input}, out ${t.output}, cache read ${t.cacheRead}, cache write ${t.cacheWrite})`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** `ls`'s compact windows: `5h 93% ↻13:11Z 7d 42% ↻Dec 5` (a day window's reset by date). */
export function renderWindows(windows: readonly RateWindow[]): string {
  return windows
    .map((w) => {
      const label = w.minutes === null ? w.name : spanLabel(w.minutes);
      return `${label} ${w.usedPercent}%${w.resetsAt ? ` ↻${resetLabel(w.resetsAt, w.minutes)}` : ""}`;
    })
    .join(" ");
}

function spanLabel(minutes: number): string {
  if (minutes % 1440 === 0) return `${minutes / 1440}d`;
  if (minutes % 60 === 0) return `${minutes / 60}h`;
  return `${minutes}m`;
}

export function resetLabel(iso: string, minutes: number | null): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  if (minutes !== null && minutes > 1440) return `${MONTHS[at.getUTCMonth()]} ${at.getUTCDate()}`;
  const hh = String(at.getUTCHours()).padStart(2, "0");
  const mm = String(at.getUTCMinutes()).padStart(2, "0");
  return `${hh}:${mm}Z`;
}
