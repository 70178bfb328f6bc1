import { accountsOf } from "../../core/accounts/list.ts";
import type { PlacementCandidate } from "../../core/accounts/placement.ts";
import type { Deps } from "../../core/ports.ts";
import type { Provider } from "../../core/providers/types.ts";
import type { ProviderId } from "../../core/schemas.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/**
 * Every account of one provider as placement sees it (core/accounts/placement.ts): its default
 * sign-in and each declared account, the billing route from names (accountsOf, as `umbel accounts`
 * decides it), its live workers and its record of windows and last limit. For `spawn --account auto`
 * and `--on-limit failover` alike. Read from the state root alone: no tmux call, no CLI start.
 */
export async function accountCandidates(deps: Deps, provider: Provider): Promise<PlacementCandidate[]> {
  const { config } = await loadUserConfig(deps);
  const accounts = accountsOf(config, provider, deps.env);
  const [live, records] = await Promise.all([
    liveByAccount(deps, provider.id),
    Promise.all(accounts.map((a) => deps.store.readAccountWindows(provider.id, a.name))),
  ]);
  return accounts.map((a, i) => ({
    account: a.name,
    billing: a.billing.route,
    live: live.get(a.name) ?? 0,
    known: records[i] ?? null,
  }));
}

/**
 * Each account's live workers of the provider, as the state root says: a meta.json not killed and
 * no exit record (a pane gone without one counts until status sees it). A warm pool's unclaimed
 * spare is nobody's work yet; one being made, removed since, or damaged is not counted.
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
