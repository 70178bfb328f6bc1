import { expandHome } from "../../core/accounts/launch.ts";
import { type AccountsResult, describeAccounts } from "../../core/accounts/list.ts";
import { unseen } from "../../core/accounts/placement.ts";
import type { Deps } from "../../core/ports.ts";
import { listProviders } from "../../core/providers/registry.ts";
import { listWorkers } from "../worker/status.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/** `umbel accounts`: the config's accounts and each provider's default, with the live workers of each. */
export async function listAccounts(deps: Deps): Promise<AccountsResult> {
  const { config } = await loadUserConfig(deps);
  const workers = await listWorkers(deps);
  const providers = listProviders();
  const declared = Object.entries(config.accounts ?? {}).map(([name, a]) => [a.provider, name] as const);
  const records = await Promise.all(
    [...providers.map((p) => [p.id, null] as const), ...declared].map(([provider, name]) =>
      deps.store.readAccountWindows(provider, name).catch(() => unseen(provider, name)),
    ),
  );
  return describeAccounts({
    config,
    providers,
    records,
    now: deps.clock.now(),
    hostEnv: deps.env,
    workers,
    expand: (home) => {
      try {
        return expandHome(home, deps.env, "");
      } catch {
        return home;
      }
    },
  });
}
