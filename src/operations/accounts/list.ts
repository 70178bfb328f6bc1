import { expandHome } from "../../core/accounts/launch.ts";
import { type AccountsResult, describeAccounts } from "../../core/accounts/list.ts";
import type { Deps } from "../../core/ports.ts";
import { listProviders } from "../../core/providers/registry.ts";
import { listWorkers } from "../worker/status.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/** `umbel accounts`: the config's accounts and each provider's default, with the live workers of each. */
export async function listAccounts(deps: Deps): Promise<AccountsResult> {
  const { config } = await loadUserConfig(deps);
  const workers = await listWorkers(deps);
  return describeAccounts({
    config,
    providers: listProviders(),
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
