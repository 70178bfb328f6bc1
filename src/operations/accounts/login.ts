import { type LoginResult, planLogin } from "../../core/accounts/login.ts";
import { UsageError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import { resolveBinary } from "../spawn/resolve.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/**
 * `umbel accounts login NAME`: the CLI's own sign-in on this terminal, in the account's home (made
 * 0700 when missing; an existing one, or a link to one, is left as it is). Its exit status is the
 * result: umbel adds nothing to what the CLI said.
 */
export async function loginAccount(
  deps: Deps,
  name: string | undefined,
  extra: readonly string[] = [],
): Promise<LoginResult> {
  const { config } = await loadUserConfig(deps);
  const plan = planLogin(config, name, getProvider, deps.env, extra);
  const bin = resolveBinary(deps, getProvider(plan.provider));
  if (!(await deps.files.isDirectory(plan.home))) {
    if ((await deps.files.size(plan.home)) !== null)
      throw new UsageError(`account "${plan.account}": its home ${plan.home} is not a directory`, {
        account: plan.account,
        home: plan.home,
      });
    await deps.files.ownDirectory(plan.home);
  }
  const command = [bin, ...plan.args];
  const exitCode = await deps.system.runOnTerminal(command, plan.env);
  return { account: plan.account, provider: plan.provider, home: plan.home, command, exitCode };
}
