import { accountsOf } from "../../core/accounts/list.ts";
import { type Placement, type PlacementCandidate, placeAccount } from "../../core/accounts/placement.ts";
import { AUTO_ACCOUNT } from "../../core/accounts/schema.ts";
import { NoHeadroomError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import type { ProviderId, SpawnInput } from "../../core/schemas.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/** A spawn with its account decided: `input.account` is the picked one (absent: the default). */
export type PlacedSpawn = { readonly input: SpawnInput; readonly placement: Placement | null };

/**
 * `spawn --account auto` (issue 24 §2): among the provider's default sign-in and declared accounts,
 * the one with the most headroom by each account's record, then the fewest live workers
 * (core/accounts/placement.ts). Read from the state root alone, the config file, the records and
 * each worker's meta.json and exit record: no tmux call, no CLI start. Any other spawn is returned
 * as it is, with no I/O. No account with headroom: NoHeadroomError (exit 120), naming the earliest reset.
 */
export async function placeSpawn(deps: Deps, input: SpawnInput): Promise<PlacedSpawn> {
  if (input.account !== AUTO_ACCOUNT) return { input, placement: null };
  // The bench counts the tmux calls between these two marks (bench/placement.ts: none).
  deps.trace.mark(`placement ${input.name}: looking`);
  const provider = getProvider(input.provider);
  const { config } = await loadUserConfig(deps);
  const accounts = accountsOf(config, provider, deps.env);
  const [live, records] = await Promise.all([
    liveByAccount(deps, provider.id),
    Promise.all(accounts.map((a) => deps.store.readAccountWindows(provider.id, a.name))),
  ]);
  const candidates: PlacementCandidate[] = accounts.map((a, i) => ({
    account: a.name,
    billing: a.billing.route,
    live: live.get(a.name) ?? 0,
    known: records[i] ?? null,
  }));
  const decision = placeAccount(candidates, deps.clock.now());
  if (!decision.placed) {
    deps.trace.mark(`placement ${input.name}: ${decision.reason}`);
    const why = decision.considered.map((c) => `${c.account ?? "default"}: ${c.skipped ?? "?"}`).join("; ");
    const reset = decision.earliestReset ? `; the earliest reset is ${decision.earliestReset}` : "";
    throw new NoHeadroomError(`--account auto: no ${provider.id} account has headroom${reset} (${why})`, {
      provider: provider.id,
      earliestReset: decision.earliestReset,
      reason: decision.reason,
      considered: decision.considered,
    });
  }
  const { placement } = decision;
  deps.trace.mark(`placement ${input.name}: ${placement.reason}`);
  const { account: _auto, ...rest } = input;
  return { input: placement.account === null ? rest : { ...rest, account: placement.account }, placement };
}

/**
 * Each account's live workers of the provider, as the state root says: a meta.json not killed and
 * no exit record (a pane gone without one counts until status sees it). A warm pool's unclaimed
 * spare is nobody's work yet.
 */
async function liveByAccount(deps: Deps, provider: ProviderId): Promise<Map<string | null, number>> {
  const names = await deps.store.listNames();
  const counted = await Promise.all(
    names.map(async (name) => {
      const meta = await deps.store.readMeta(name).catch(() => null);
      if (!meta || meta.provider !== provider || meta.state === "killed" || meta.pool?.state === "spare")
        return undefined;
      const exit = await deps.store.readExit(name).catch(() => null);
      return exit === null ? (meta.account ?? null) : undefined;
    }),
  );
  const live = new Map<string | null, number>();
  for (const account of counted) if (account !== undefined) live.set(account, (live.get(account) ?? 0) + 1);
  return live;
}
