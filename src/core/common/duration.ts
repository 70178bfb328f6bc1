const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * The longest duration umbel takes (--timeout, --idle-timeout, --start-timeout, a step's timeout):
 * 7 days. Generous for real work, and a third of what a timer can hold (below), so a deadline plus
 * the loops' own slack never comes near it.
 */
export const MAX_DURATION_MS = 7 * 24 * 3_600_000;

/** Bun's (and Node's) timers hold a signed 32-bit delay: past it they fire after 1 ms and warn. */
export const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * "90s" → 90000, "10m" → 600000, "1h30m" → 5400000, 12 (seconds) → 12000; null when not a duration
 * (exponents, NaN, Infinity, negatives, and digit strings too long to be finite are not).
 */
export function parseDuration(value: string | number): number | null {
  if (typeof value === "number") return finite(value * 1000);
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return finite(Number(text) * 1000);
  const parts = [...text.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) return null;
  return finite(parts.reduce((sum, p) => sum + Number(p[1]) * (UNITS[p[2] ?? "s"] ?? 0), 0));
}

/** A delay any timer can take: NaN and negatives are 0, anything past the 32-bit bound is the bound. */
export function clampTimerMs(ms: number): number {
  if (!(ms > 0)) return 0;
  return Math.min(ms, MAX_TIMER_MS);
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms % 1000 === 0 ? 0 : 1)}s`;
  const m = Math.floor(ms / 60_000);
  const s = Math.round((ms % 60_000) / 1000);
  return s === 0 ? `${m}m` : `${m}m${s}s`;
}

function finite(ms: number): number | null {
  return Number.isFinite(ms) && ms >= 0 ? Math.round(ms) : null;
}
