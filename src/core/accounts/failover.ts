import { z } from "zod";
import { isRecord, parseJson } from "../common/json.ts";
import { UsageLimit } from "../limits/limits.ts";
import type { EnvSpec } from "../schemas.ts";
import type { PlacementCandidate } from "./placement.ts";

/**
 * `--on-limit failover` (docs/accounts.md, "Failover"): a turn a usage limit stopped moves to another
 * account of the same provider with headroom (core/accounts/placement.ts, the account left excluded)
 * and goes on there: the CLI's session record is carried into the new account's home and resumed
 * (claude, codex), or, where a CLI's session cannot be carried, a fresh session is sent the turn's
 * prompt again (the earlier context is lost, and the outcome says so). Never across providers, never
 * onto an API-key account, and at most once per account per wait (no ping-pong).
 */

export const FailoverMove = z
  .object({
    from: z.string().nullable().describe("The account the worker left; null: the provider's default sign-in"),
    to: z.string().nullable().describe("The account it moved to; null: the provider's default sign-in"),
    limit: UsageLimit.describe("The usage limit that moved it"),
    at: z.string().describe("When umbel moved it (ISO 8601)"),
    carried: z
      .enum(["resumed", "fresh"])
      .describe(
        "resumed: the CLI's session record was carried over and resumed (the conversation goes on); fresh: a new session was sent the turn's prompt again (the earlier context is lost)",
      ),
  })
  .describe("One failover: the account left, the one taken, and the limit that moved the worker");
export type FailoverMove = z.infer<typeof FailoverMove>;

/** What the driver of a wait found when it tried to fail a worker over (WaitObservation `failed-over`). */
export type FailoverResult =
  /** Moved and the turn continued: follow the new turn from `baseline`. */
  | { readonly status: "moved"; readonly move: FailoverMove; readonly baseline: number }
  /** No account of the provider has headroom: the limit stands, with the earliest reset. */
  | { readonly status: "not-placed"; readonly earliestReset: string | null; readonly reason: string }
  /** The move was tried and did not happen (why); the limit stands. */
  | { readonly status: "failed"; readonly error: string; readonly move?: FailoverMove | undefined };

/**
 * The earliest time any account of the provider is out of its limit again: the limit that stopped
 * the turn, and each account's exhausted window or last limit not yet reset (the accounts a
 * failover left are excluded from placement, so placement's own earliest reset leaves them out).
 */
export function earliestReset(
  limit: UsageLimit,
  candidates: readonly PlacementCandidate[],
  now: number,
): string | null {
  const resets: string[] = [];
  if (limit.resetsAt !== null) resets.push(limit.resetsAt);
  for (const c of candidates) {
    if (c.billing !== "subscription" || c.known === null) continue;
    for (const w of c.known.windows) if (w.usedPercent >= 100 && w.resetsAt !== null) resets.push(w.resetsAt);
    const last = c.known.lastLimit?.limit.resetsAt;
    if (last) resets.push(last);
  }
  const ahead = resets.filter((r) => msOf(r) > now).sort((a, b) => msOf(a) - msOf(b));
  return ahead[0] ?? (limit.resetsAt !== null ? limit.resetsAt : null);
}

/**
 * A failover relaunches the CLI, long after spawn, from the spawn's own input (kept in the worker's
 * folder): a value given as `--env NAME=VALUE` is never kept anywhere, so such a worker cannot be
 * relaunched with it. Refused at spawn (the names to pass by name instead), or null.
 */
export function refuseLiteralEnv(env: EnvSpec | undefined): string | null {
  const literal = Object.entries(env ?? {})
    .filter(([, value]) => typeof value === "string")
    .map(([name]) => name);
  if (literal.length === 0) return null;
  return `--on-limit failover relaunches the CLI on another account, and umbel never keeps a value: pass ${literal.join(", ")} by name (--env NAME, MCP {fromEnv}) instead of NAME=VALUE`;
}

/** One failover as `logs` shows it (`umbel:failover`), at its place in the events log. */
export type FailoverLogRecord = FailoverMove & {
  /** Events in the log when it happened. */
  readonly index: number;
};

export const FAILOVER_LOG_FILE = "failover.json";

/** The worker's failover records (a JSON array), newest last; anything else reads as none. */
export function parseFailoverLog(text: string | null): FailoverLogRecord[] {
  const parsed = text === null ? undefined : parseJson(text);
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((item: unknown) => {
    const move = FailoverMove.safeParse(item);
    const index = isRecord(item) ? item.index : undefined;
    return move.success && typeof index === "number" ? [{ ...move.data, index }] : [];
  });
}

/** Each move as a line of `logs` (`umbel:failover`, with its summary), at its place in the events log. */
export function failoverLogEntries(records: readonly FailoverLogRecord[]): {
  key: string;
  index: number;
  name: "umbel:failover";
  payload: Record<string, unknown> & { summary: string };
}[] {
  return records.map((r, i) => {
    const { index, ...move } = r;
    return {
      key: `failover.${i}`,
      index,
      name: "umbel:failover",
      payload: { ...move, summary: `failover: ${describeMove(move)}` },
    };
  });
}

/** The one-line summary of a move: `work → spare (five_hour limit, resumed)`. */
export function describeMove(move: FailoverMove): string {
  const name = (a: string | null) => a ?? "(default)";
  return `${name(move.from)} → ${name(move.to)} (${move.limit.window ?? "usage"} limit, ${move.carried})`;
}

function msOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : ms;
}
