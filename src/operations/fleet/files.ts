import { UsageError } from "../../core/errors.ts";
import { compileNotify } from "../../core/fleet/notify.ts";
import { checkPolicy, compilePolicy, policyCommand } from "../../core/fleet/policy/compile.ts";
import type { Deps } from "../../core/ports.ts";
import type { Provider } from "../../core/providers/types.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";

/**
 * The files hooks/hook.sh and launch.sh read from a worker's session dir for its fleet options:
 * `policy.json` + `policy.cmd` + `policy.tsv` (--allow/--deny: the rules, how the hook runs this
 * umbel to decide a call, the events it asks about) and `notify.cmd` + `notify.tsv` (--notify).
 * Checked before any I/O.
 */

/** A usage error for fleet options the provider cannot honour, or a pattern that is not one. */
export function checkFleetOptions(provider: Provider, input: SpawnInput): void {
  const rules = { allow: input.allow ?? [], deny: input.deny ?? [] };
  if (rules.allow.length + rules.deny.length > 0) {
    if (!provider.policy)
      throw new UsageError(`--allow/--deny are not supported with --provider ${provider.id}`, {
        provider: provider.id,
      });
    const problem = checkPolicy(rules);
    if (problem) throw new UsageError(problem, { provider: provider.id });
  }
  if (input.notify !== undefined && !provider.notifyRules)
    throw new UsageError(`--notify is not supported with --provider ${provider.id}`, {
      provider: provider.id,
    });
  if (input.base !== undefined && !input.worktree)
    throw new UsageError("--base names the commit a --worktree starts from: give --worktree too", {
      base: input.base,
    });
}

export async function writeFleetFiles(deps: Deps, provider: Provider, input: SpawnInput): Promise<void> {
  const rules = { allow: input.allow ?? [], deny: input.deny ?? [] };
  const denyAsks = input.nonInteractive === true;
  const policy = provider.policy ? compilePolicy(rules, provider.policy, provider.id, { denyAsks }) : null;
  if (policy !== null) {
    const command = policyCommand(deps.system.selfArgv(), deps.store.paths(input.name).dir);
    await deps.store.writeWorkerFile(input.name, "policy.json", `${JSON.stringify(policy.file)}\n`);
    await deps.store.writeWorkerFile(input.name, "policy.cmd", command);
    // Last: the hook asks umbel only once policy.tsv exists.
    await deps.store.writeWorkerFile(input.name, "policy.tsv", policy.tsv);
  }
  if (input.notify !== undefined && provider.notifyRules) {
    await deps.store.writeWorkerFile(input.name, "notify.cmd", input.notify);
    await deps.store.writeWorkerFile(input.name, "notify.tsv", compileNotify(provider.notifyRules));
  }
}
