import { z } from "zod";
import { BillingRoute, billingEnvOf, billingFromEnv } from "../limits/billing.ts";
import type { Provider } from "../providers/types.ts";
import { ProviderId } from "../schemas.ts";
import type { UserConfig } from "../worker/user-config.ts";

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
  windows: z.null().describe("Its last known usage windows: unknown for now (not yet kept per account)"),
});
export type AccountRow = z.infer<typeof AccountRow>;

export const AccountsResult = z.object({
  accounts: z.array(AccountRow).describe("Each provider's default, then the declared accounts, by provider"),
});
export type AccountsResult = z.infer<typeof AccountsResult>;

const LIVE = new Set(["starting", "idle", "busy", "needs-input"]);

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
};

/** The rows, pure: billing from names only, as spawn decides it (core/limits/billing.ts). */
export function describeAccounts(facts: AccountFacts): AccountsResult {
  const live = (provider: string, account: string | null) =>
    facts.workers
      .filter((w) => w.provider === provider && (w.account ?? null) === account && LIVE.has(w.state))
      .map((w) => w.name)
      .sort();
  const configured = (provider: Provider, drop?: string) =>
    (facts.config[provider.id]?.env ?? []).filter((n) => facts.hostEnv[n] !== undefined && n !== drop);
  const rows: AccountRow[] = [];
  for (const provider of facts.providers) {
    const defaults = configured(provider);
    rows.push({
      name: null,
      provider: provider.id,
      home: null,
      env: defaults,
      billing: billingFromEnv(billingEnvOf(provider), defaults),
      workers: live(provider.id, null),
      windows: null,
    });
    const declared = Object.entries(facts.config.accounts ?? {})
      .filter(([, a]) => a.provider === provider.id)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    for (const [name, account] of declared) {
      const own = Object.keys(account.env ?? {});
      // As spawn: the [provider] env's sign-in token is left out on an account (spawn/prepare.ts).
      const names = [...new Set([...configured(provider, provider.signInToken?.env), ...own])];
      rows.push({
        name,
        provider: provider.id,
        home: account.home === undefined ? null : facts.expand(account.home),
        env: own,
        billing: billingFromEnv(billingEnvOf(provider), names),
        workers: live(provider.id, name),
        windows: null,
      });
    }
  }
  return { accounts: rows };
}

/** One line per account: NAME PROVIDER BILLING WORKERS HOME, "windows: unknown" under the table. */
export function renderAccounts(r: AccountsResult): string {
  const table = [
    ["ACCOUNT", "PROVIDER", "BILLING", "WORKERS", "HOME"],
    ...r.accounts.map((a) => [
      a.name ?? "(default)",
      a.provider,
      a.billing.route + (a.billing.via.length > 0 ? ` (${a.billing.via.join(", ")})` : ""),
      a.workers.length === 0 ? "-" : a.workers.join(","),
      a.home ?? "(the CLI's own)",
    ]),
  ];
  const widths = table[0]?.map((_, i) => Math.max(...table.map((row) => (row[i] ?? "").length))) ?? [];
  const lines = table.map((row) =>
    row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("  "),
  );
  return `${lines.join("\n")}\nwindows: unknown (umbel does not keep each account's windows yet)\n`;
}
