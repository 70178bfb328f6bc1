// Subscription usage limits in each dialect, as the pinned CLIs recognise them (shared notes,
// limits.md): the reply `limit(seconds, window, times)` or the directive `stub:limit`, rendered as
// the 429 each CLI treats as a usage limit rather than a passing rate limit.
import type { StubReply } from "./types.ts";

export type LimitReply = Extract<StubReply, { kind: "limit" }>;

/** A usage limit whose window resets `seconds` from the answer (times: main requests it answers). */
export function limit(seconds: number, window?: string, times = 1): StubReply {
  return window === undefined ? { kind: "limit", seconds, times } : { kind: "limit", seconds, window, times };
}

/** Unix seconds `seconds` from now. */
function unixIn(seconds: number): number {
  return Math.floor(Date.now() / 1000) + seconds;
}

/**
 * claude 2.1.332, claude.ai subscriber sessions only (an API-key session retries the same 429): any
 * of representative-claim / overage-status makes it terminal and `usage_limit_reached`; the reset
 * header gives "· resets <time>". The full set `mock:limit` sent in the notes' runs.
 */
export function anthropicLimitHeaders(reply: LimitReply): Record<string, string> {
  const reset = String(unixIn(reply.seconds));
  const later = String(unixIn(Math.max(reply.seconds, 200_000)));
  const claim = reply.window ?? "five_hour";
  const fiveHourOut = claim === "five_hour";
  return {
    "anthropic-ratelimit-unified-status": "rejected",
    "anthropic-ratelimit-unified-reset": reset,
    "anthropic-ratelimit-unified-representative-claim": claim,
    "anthropic-ratelimit-unified-5h-status": fiveHourOut ? "rejected" : "allowed",
    "anthropic-ratelimit-unified-5h-reset": fiveHourOut ? reset : later,
    "anthropic-ratelimit-unified-5h-utilization": fiveHourOut ? "1.0" : "0.3",
    "anthropic-ratelimit-unified-7d-status": fiveHourOut ? "allowed" : "rejected",
    "anthropic-ratelimit-unified-7d-reset": fiveHourOut ? later : reset,
    "anthropic-ratelimit-unified-7d-utilization": fiveHourOut ? "0.42" : "1.0",
    "anthropic-ratelimit-unified-overage-status": "rejected",
    "anthropic-ratelimit-unified-overage-disabled-reason": "out_of_credits",
    "retry-after": String(reply.seconds),
  };
}

/**
 * codex 0.171.0: a 429 whose body's `error.type` is `usage_limit_reached` (`resets_at` a number), not
 * retried; the `x-codex-primary-*` headers add a token_count line with the windows to the rollout.
 */
export function openaiLimit(reply: LimitReply): {
  body: Record<string, unknown>;
  headers: Record<string, string>;
} {
  const reset = unixIn(reply.seconds);
  return {
    body: {
      error: {
        type: "usage_limit_reached",
        message: "The usage limit has been reached (stub)",
        plan_type: reply.window ?? "plus",
        resets_at: reset,
      },
    },
    headers: {
      "x-codex-primary-used-percent": "100",
      "x-codex-primary-window-minutes": "300",
      "x-codex-primary-reset-at": String(reset),
      "x-codex-secondary-used-percent": "41",
      "x-codex-secondary-window-minutes": "10080",
      "x-codex-secondary-reset-at": String(unixIn(Math.max(reply.seconds, 259_200))),
    },
  };
}

/**
 * gemini-cli 0.61.0 (classifyGoogleError): a QuotaFailure with a PerDay quota id is a daily quota
 * (no reset time); a RetryInfo over 300 s is terminal too, with "Please retry in Ns" (≤ 300 s is
 * retried, so `seconds` must be over 300 for a limit with a reset).
 */
export function geminiLimitMessage(reply: LimitReply): string {
  if (reply.window === "daily" || reply.window === undefined)
    return JSON.stringify({
      message: "You exceeded your current quota (stub). Quota exceeded for metric: requests per day",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.QuotaFailure",
          violations: [{ quotaMetric: "stub/requests", quotaId: "GenerateRequestsPerDayPerProjectPerModel" }],
        },
      ],
    });
  return JSON.stringify({
    message: `You exceeded your current quota. Please retry in ${reply.seconds}s.`,
    details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay: `${reply.seconds}s` }],
  });
}

/** `{now+N}` in header values → unix seconds N from now (the notes' mock templating). */
export function templateHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      value.replace(/\{now\+(\d+)\}/g, (_m, n: string) => String(unixIn(Number(n)))),
    ]),
  );
}
