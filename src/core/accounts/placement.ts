import { z } from "zod";
import { UsageLimit } from "../limits/limits.ts";
import { RateWindow } from "../limits/telemetry.ts";
import { ProviderId } from "../schemas.ts";

/**
 * Where `spawn --account auto` puts a worker, and where `--on-limit failover` moves one: among one
 * provider's accounts (its default sign-in and each declared account), the one with the most
 * headroom by the windows last seen on any of its workers, skipping one whose window is exhausted
 * or that met a limit whose reset has not passed, then the fewest live workers. An account billed
 * to an API key or a cloud platform is never picked here: only when named (no silent switch of
 * billing). Pure: the caller reads the records (state root `accounts/`) and the live workers.
 */

/** What umbel last saw of one account's windows (persisted per account, 0600, `accounts/`). */
export const AccountWindows = z
  .object({
    provider: ProviderId,
    account: z.string().nullable().describe("The account's name; null: the provider's default sign-in"),
    windows: z.array(RateWindow).describe("The windows as last seen (empty until one was read)"),
    seenAt: z.string().nullable().describe("When umbel read them (ISO 8601); null: never"),
    from: z.string().nullable().describe("The worker whose records they came from"),
    lastLimit: z
      .object({
        at: z.string().describe("When umbel saw the limit (ISO 8601)"),
        worker: z.string().describe("The worker it stopped"),
        limit: UsageLimit,
      })
      .nullable()
      .describe("The last usage limit a worker of this account met"),
  })
  .describe("An account's usage windows and last limit, as umbel last saw them");
export type AccountWindows = z.infer<typeof AccountWindows>;

/** Nothing seen yet of an account. */
export function unseen(provider: ProviderId, account: string | null): AccountWindows {
  return { provider, account, windows: [], seenAt: null, from: null, lastLimit: null };
}

/**
 * The record once a worker's windows were read at `at` (an older reading never replaces a newer).
 * Every worker of an account shows the same windows, but an idle one's records are as old as its
 * last turn: within one period (the same reset) usage only grows, so a lower reading is a stale
 * one and never lowers the window; a later reset is a new period and replaces it. A reading that
 * is current in every window it shows is the account's latest (its time and worker); one that is
 * stale somewhere only adds the windows it knows better.
 */
export function sawWindows(
  known: AccountWindows,
  seen: { readonly windows: readonly RateWindow[]; readonly at: string; readonly worker: string },
): AccountWindows {
  if (seen.windows.length === 0) return known;
  if (known.seenAt !== null && msOf(known.seenAt) > msOf(seen.at)) return known;
  const windows = mergeWindows(known.windows, seen.windows);
  const among = (list: readonly RateWindow[]) => (w: RateWindow) => list.some((x) => sameWindow(x, w));
  const recent = known.seenAt !== null && msOf(seen.at) - msOf(known.seenAt) < SEEN_AGAIN_MS;
  if (recent && windows.length === known.windows.length && windows.every(among(known.windows))) return known;
  if (seen.windows.every(among(windows))) return { ...known, windows, seenAt: seen.at, from: seen.worker };
  if (windows.every(among(known.windows))) return known;
  return { ...known, windows };
}

/** The same reading of one window: its usage, in one period. */
function sameWindow(a: RateWindow, b: RateWindow): boolean {
  return a.name === b.name && a.usedPercent === b.usedPercent && samePeriod(a.resetsAt, b.resetsAt);
}

function samePeriod(a: string | null, b: string | null): boolean {
  return a === b || (a !== null && b !== null && Math.abs(msOf(a) - msOf(b)) < SAME_PERIOD_MS);
}

/**
 * An equal reading this soon after the last is not news: `ls` reads every live worker, and ten
 * workers of one account wrote its file ten times (3 of the 22 ms of an `ls` with 10 workers,
 * bench/placement.ts).
 */
const SEEN_AGAIN_MS = 30_000;

/** Two resets this close are one period (a provider may round its reset time differently). */
const SAME_PERIOD_MS = 10 * 60_000;

/** Per window name, the later period, else the higher usage (a tie: the known one); the reading's order, then the rest. */
function mergeWindows(known: readonly RateWindow[], read: readonly RateWindow[]): RateWindow[] {
  const pick = (k: RateWindow | undefined, r: RateWindow): RateWindow => {
    if (!k || k.resetsAt === null || r.resetsAt === null) return r;
    if (!samePeriod(k.resetsAt, r.resetsAt)) return msOf(r.resetsAt) > msOf(k.resetsAt) ? r : k;
    return r.usedPercent > k.usedPercent ? r : k;
  };
  const merged = read.map((r) =>
    pick(
      known.find((k) => k.name === r.name),
      r,
    ),
  );
  return [...merged, ...known.filter((k) => !read.some((r) => r.name === k.name))];
}

/** The record once a worker met a limit at `at` (the newer limit is kept). */
export function sawLimit(
  known: AccountWindows,
  seen: { readonly limit: UsageLimit; readonly at: string; readonly worker: string },
): AccountWindows {
  if (known.lastLimit !== null && msOf(known.lastLimit.at) > msOf(seen.at)) return known;
  return { ...known, lastLimit: { at: seen.at, worker: seen.worker, limit: seen.limit } };
}

/**
 * How long a limit with no reset time keeps its account out of placement: claude's and codex's
 * shortest window (5 h). A window's reading never expires by age alone: its own reset does that.
 */
const LIMIT_WITHOUT_RESET_MS = 5 * 3_600_000;

/** Headroom is compared in steps this wide, so the fewest live workers decides between near equals. */
const HEADROOM_STEP_PERCENT = 10;

export type PlacementCandidate = {
  /** null: the provider's default sign-in. */
  readonly account: string | null;
  readonly billing: "subscription" | "api-key" | "cloud";
  /** Its live workers (starting, idle, busy, needs-input). */
  readonly live: number;
  readonly known: AccountWindows | null;
};

export const ConsideredAccount = z.object({
  account: z.string().nullable().describe("null: the provider's default sign-in"),
  headroomPercent: z
    .number()
    .nullable()
    .describe("100 minus the most-used window not yet reset; null: no window seen yet (counted as 100)"),
  live: z.number().int().describe("Its live workers when placement looked"),
  skipped: z
    .string()
    .nullable()
    .describe("Why it could not be picked (exhausted until its reset, API-key billing); null: it could"),
  resetsAt: z.string().nullable().describe("When a skipped account's exhausted window or limit resets"),
});
export type ConsideredAccount = z.infer<typeof ConsideredAccount>;

export const Placement = z
  .object({
    account: z.string().nullable().describe("The account picked; null: the provider's default sign-in"),
    reason: z.string().describe("Why, in one line"),
    considered: z.array(ConsideredAccount).describe("Every account of the provider, as placement saw it"),
  })
  .describe("How --account auto (or a failover) chose the account");
export type Placement = z.infer<typeof Placement>;

export type PlacementDecision =
  | { readonly placed: true; readonly placement: Placement }
  | {
      readonly placed: false;
      /** The earliest reset among the exhausted accounts; null when none says. */
      readonly earliestReset: string | null;
      readonly reason: string;
      readonly considered: readonly ConsideredAccount[];
    };

/**
 * The account with the most headroom at `now` (ms), `exclude`d ones aside (a failover leaves the
 * account it is on). Ties within one HEADROOM_STEP_PERCENT go to the fewest live workers, then the
 * default sign-in, then the name.
 */
export function placeAccount(
  candidates: readonly PlacementCandidate[],
  now: number,
  exclude: readonly (string | null)[] = [],
): PlacementDecision {
  const considered = candidates.map((c) => consider(c, now, exclude));
  const open = considered
    .map((c, i) => ({ c, step: Math.floor((c.headroomPercent ?? 100) / HEADROOM_STEP_PERCENT), i }))
    .filter(({ c }) => c.skipped === null)
    .sort(
      (a, b) =>
        b.step - a.step ||
        a.c.live - b.c.live ||
        Number(a.c.account !== null) - Number(b.c.account !== null) ||
        (a.c.account ?? "").localeCompare(b.c.account ?? "") ||
        a.i - b.i,
    );
  const best = open[0]?.c;
  if (best === undefined) {
    const resets = considered.flatMap((c) => (c.resetsAt === null ? [] : [c.resetsAt]));
    const earliestReset = resets.sort((a, b) => msOf(a) - msOf(b))[0] ?? null;
    const reason =
      considered.length === 0
        ? "no account of this provider to place on"
        : `no account has headroom${earliestReset ? ` (the earliest reset is ${earliestReset})` : ""}`;
    return { placed: false, earliestReset, reason, considered };
  }
  return {
    placed: true,
    placement: { account: best.account, reason: reasonFor(best, open.length), considered },
  };
}

function consider(
  c: PlacementCandidate,
  now: number,
  exclude: readonly (string | null)[],
): ConsideredAccount {
  const base = { account: c.account, live: c.live };
  const headroomPercent = headroom(c.known, now);
  if (exclude.includes(c.account))
    return { ...base, headroomPercent, skipped: "the account the worker is leaving", resetsAt: null };
  if (c.billing !== "subscription")
    return {
      ...base,
      headroomPercent,
      skipped: `bills ${c.billing === "api-key" ? "an API key" : "a cloud platform"}: used only when named`,
      resetsAt: null,
    };
  const out = exhausted(c.known, now);
  if (out) return { ...base, headroomPercent, skipped: out.why, resetsAt: out.resetsAt };
  return { ...base, headroomPercent, skipped: null, resetsAt: null };
}

/** 100 minus the most-used window whose reset has not passed; null: no window seen. */
function headroom(known: AccountWindows | null, now: number): number | null {
  if (!known || known.windows.length === 0) return null;
  const current = known.windows.filter((w) => !hasReset(w.resetsAt, now));
  const used = Math.max(0, ...current.map((w) => w.usedPercent));
  return Math.max(0, Math.min(100, 100 - used));
}

/** Why an account is out until a reset, or null: a window at 100 %, or a limit met, not reset yet. */
function exhausted(
  known: AccountWindows | null,
  now: number,
): { why: string; resetsAt: string | null } | null {
  if (!known) return null;
  const full = known.windows.find((w) => w.usedPercent >= 100 && !hasReset(w.resetsAt, now));
  if (full)
    return {
      why: `its ${full.name} window is used up until ${full.resetsAt ?? "an unknown reset"}`,
      resetsAt: full.resetsAt,
    };
  const limit = known.lastLimit;
  if (!limit) return null;
  const resetsAt = limit.limit.resetsAt;
  const over = resetsAt === null ? msOf(limit.at) + LIMIT_WITHOUT_RESET_MS <= now : hasReset(resetsAt, now);
  if (over) return null;
  const window = limit.limit.window ?? "usage";
  return {
    why: `${limit.worker} met its ${window} limit at ${limit.at}, resetting ${resetsAt ?? "at an unknown time"}`,
    resetsAt,
  };
}

function hasReset(resetsAt: string | null, now: number): boolean {
  return resetsAt !== null && msOf(resetsAt) <= now;
}

function reasonFor(best: ConsideredAccount, open: number): string {
  const name = best.account ?? "the default sign-in";
  const room = best.headroomPercent === null ? "no window seen yet" : `${best.headroomPercent}% headroom`;
  const workers = `${best.live} live worker${best.live === 1 ? "" : "s"}`;
  if (open === 1) return `${name}: the only account with headroom (${room}, ${workers})`;
  return `${name}: the most headroom (${room}), then the fewest live workers (${workers})`;
}

function msOf(iso: string): number {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? 0 : ms;
}
