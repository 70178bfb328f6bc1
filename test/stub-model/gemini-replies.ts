// Gemini-only reply builders. gemini-cli 0.61.0 decides what a 429 means from the error's
// `details` (read from the bundle's classifyGoogleError and checked against the real TUI):
//   QuotaFailure with a PerDay quota id → "Usage limit reached" + the Keep trying / Stop dialog
//   RetryInfo or no details              → retried with backoff, for ever
// A 404 opens the same dialog ("Model … was not found"); 500/503 are retried for ever.
import { httpError } from "./replies.ts";
import type { StubReply } from "./types.ts";

/** A daily quota that is used up: the TUI asks "Keep trying / Stop" and fires no hook meanwhile. */
export function dailyQuotaExhausted(times = 1): StubReply {
  return httpError(
    429,
    times,
    JSON.stringify({
      message: "You exceeded your current quota (stub). Quota exceeded for metric: requests per day",
      details: [
        {
          "@type": "type.googleapis.com/google.rpc.QuotaFailure",
          violations: [{ quotaMetric: "stub/requests", quotaId: "GenerateRequestsPerDayPerProjectPerModel" }],
        },
      ],
    }),
  );
}

/** A rate limit with a retry delay: gemini-cli waits `retryDelay` and tries again. */
export function rateLimited(times = 1, retryDelay = "1s"): StubReply {
  return httpError(
    429,
    times,
    JSON.stringify({
      message: "Resource has been exhausted (stub rate limit).",
      details: [{ "@type": "type.googleapis.com/google.rpc.RetryInfo", retryDelay }],
    }),
  );
}
