import { expandHome } from "../../core/accounts/launch.ts";
import { describeAccounts } from "../../core/accounts/list.ts";
import type { PlacementCandidate } from "../../core/accounts/placement.ts";
import type { Deps } from "../../core/ports.ts";
import type { Provider } from "../../core/providers/types.ts";
import type { Meta } from "../../core/worker/meta.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/**
 * Every account of one provider as placement sees it (core/accounts/placement.ts): its default
 * sign-in and each declared account, the billing route from names (as `umbel accounts` decides it),
 * its live workers and its record of windows and last limit. For `spawn --account auto` and
 * `--on-limit failover` alike. No tmux call: a worker counts as live from its meta.json (not killed),
 * so a CLI that exited by itself still counts until it is killed or pruned.
 */
export async function accountCandidates(deps: Deps, provider: Provider): Promise<PlacementCandidate[]> {
  const { config } = await loadUserConfig(deps);
  const workers = await readWorkers(deps);
  const { accounts } = describeAccounts({
    config,
    providers: [provider],
    hostEnv: deps.env,
    workers: workers.map((m) => ({
      name: m.name,
      provider: m.provider,
      account: m.account ?? null,
      state: m.state === "ready" ? "idle" : m.state,
    })),
    expand: (home) => {
      try {
        return expandHome(home, deps.env, "");
      } catch {
        return home;
      }
    },
  });
  return Promise.all(
    accounts.map(async (row) => ({
      account: row.name,
      billing: row.billing.route,
      live: row.workers.length,
      known: await deps.store.readAccountWindows(provider.id, row.name),
    })),
  );
}

async function readWorkers(deps: Deps): Promise<Meta[]> {
  const names = await deps.store.listNames();
  const metas = await Promise.all(
    names.map((name) =>
      // One being made, removed since, or damaged: not counted (placement only ranks by it).
      deps.store.readMeta(name).catch(() => null),
    ),
  );
  return metas.filter((m): m is Meta => m !== null);
}
