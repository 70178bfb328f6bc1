import { type Placement, placeAccount } from "../../core/accounts/placement.ts";
import { AUTO_ACCOUNT } from "../../core/accounts/schema.ts";
import { NoHeadroomError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import { accountCandidates } from "./candidates.ts";

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
  const candidates = await accountCandidates(deps, provider);
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
