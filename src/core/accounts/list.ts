import { z } from "zod";
import { BillingRoute, billingEnvOf, billingFromEnv } from "../limits/billing.ts";
import { RateWindow } from "../limits/telemetry.ts";
import type { Provider } from "../providers/types.ts";
import { isRunningState, ProviderId } from "../schemas.ts";
import type { UserConfig } from "../worker/user-config.ts";
import { AccountWindows } from "./placement.ts";

/** `umbel accounts`: each provider's default sign-in and each declared account, with its live workers. */

const AccountRow = z.object({
  name: z
    .string()
    .nullable()
    .describe("The account's name in config.toml; null: the provider's default sign-in"),
  provider: ProviderId,
  home: z
    .string()
    .nullable()
    .describe("Where its sign-in lives (~ expanded); null: the CLI's own default home"),
  env: z.array(z.string()).describe("The variables it passes by name (TARGET ← $SOURCE as TARGET)"),
  billing: BillingRoute.describe(
    "The route its variable names select: subscription, api-key or cloud, and the names that decided it",
  ),
  workers: z.array(z.string()).describe("Its live workers (starting, idle, busy or needs-input), by name"),
  windows: z
    .object({
      windows: z.array(RateWindow).describe("Each window: used percent and reset"),
      seenAt: z.string().describe("When umbel read them (ISO 8601)"),
      ageMs: z.number().int().describe("How old that reading is, in ms"),
      from: z.string().nullable().describe("The worker whose records they came from"),
    })
    .nullable()
    .describe("Its windows as umbel last read them from any of its workers; null: none seen yet"),
  lastLimit: AccountWindows.shape.lastLimit,
});
export type AccountRow = z.infer<typeof AccountRow>;

export const AccountsResult = z.object({
  accounts: z.array(AccountRow).describe("Each provider's default, then the declared accounts, by provider"),
});
export type AccountsResult = z.infer<typeof AccountsResult>;

export type AccountFacts = {
  readonly config: UserConfig;
  readonly providers: readonly Provider[];
  readonly hostEnv: Readonly<Record<string, string | undefined>>;
  /** Every worker's name, provider, account (null: default) and state. */
  readonly workers: readonly {
    name: string;
    provider: string;
    account?: string | null | undefined;
    state: string;
  }[];
  /** `~` expanded (core/accounts/launch.ts), or the text as written when it cannot be. */
  readonly expand: (home: string) => string;
  /** Each account's record as the state root holds it (accounts/). */
  readonly records: readonly AccountWindows[];
  /** ms, for each reading's age. */
  readonly now: number;
};

/** One provider's default sign-in and declared accounts, each with its billing route (from names). */
export type ProviderAccount = {
  /** null: the provider's default sign-in. */
  readonly name: string | null;
  readonly home: string | undefined;
  /** The variables it passes by name. */
  readonly env: readonly string[];
  readonly billing: BillingRoute;
};

/**
 * The default first, then the declared accounts by name. Billing from names only, as spawn decides
 * it (core/limits/billing.ts): on an account, the [provider] env's sign-in token is left out
 * (spawn/prepare.ts). `spawn --account auto` places among these.
 */
export function accountsOf(
  config: UserConfig,
  provider: Provider,
  hostEnv: Readonly<Record<string, string | undefined>>,
): ProviderAccount[] {
  const configured = (drop?: string) =>
    (config[provider.id]?.env ?? []).filter((n) => hostEnv[n] !== undefined && n !== drop);
  const defaults = configured();
  const rows: ProviderAccount[] = [
    { name: null, home: undefined, env: defaults, billing: billingFromEnv(billingEnvOf(provider), defaults) },
  ];
  const declared = Object.entries(config.accounts ?? {})
    .filter(([, a]) => a.provider === provider.id)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  for (const [name, account] of declared) {
    const own = Object.keys(account.env ?? {});
    const names = [...new Set([...configured(provider.signInToken?.env), ...own])];
    rows.push({ name, home: account.home, env: own, billing: billingFromEnv(billingEnvOf(provider), names) });
  }
  return rows;
}

/** The rows, pure: each provider's accounts (accountsOf) with their live workers and records. */
export function describeAccounts(facts: AccountFacts): AccountsResult {
  const live = (provider: string, account: string | null) =>
    facts.workers
      .filter((w) => w.provider === provider && (w.account ?? null) === account && isRunningState(w.state))
      .map((w) => w.name)
      .sort();
  const rows: AccountRow[] = [];
  for (const provider of facts.providers)
    for (const account of accountsOf(facts.config, provider, facts.hostEnv)) {
      const known = facts.records.find((r) => r.provider === provider.id && r.account === account.name);
      rows.push({
        name: account.name,
        provider: provider.id,
        home: account.home === undefined ? null : facts.expand(account.home),
        env: [...account.env],
        billing: account.billing,
        workers: live(provider.id, account.name),
        ...recordOf(known ?? null, facts.now),
      });
    }
  return { accounts: rows };
}

function recordOf(known: AccountWindows | null, now: number): Pick<AccountRow, "windows" | "lastLimit"> {
  const seen =
    known?.seenAt && known.windows.length > 0
      ? {
          windows: known.windows,
          seenAt: known.seenAt,
          ageMs: Math.max(0, now - Date.parse(known.seenAt)),
          from: known.from,
        }
      : null;
  return { windows: seen, lastLimit: known?.lastLimit ?? null };
}
