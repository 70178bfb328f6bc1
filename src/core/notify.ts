import { OUTCOME_EXIT } from "./outcome.ts";
import type { NotifyRule } from "./providers/types.ts";

/**
 * `spawn --notify CMD`: when one of the worker's turns ends, hooks/hook.sh (and launch.sh, for dead)
 * runs CMD in the background with the outcome as JSON on stdin — from the worker's own hooks, so no
 * umbel process needs to be alive. umbel writes the command to `notify.cmd` and the provider's rules
 * to `notify.tsv`: per line, tab-separated, the hook event, the outcome, its exit code, an extended
 * regex the payload line must match and one it must not (`-`: no condition; never empty, since sh's
 * `read` folds adjacent tabs into one).
 */
export function compileNotify(rules: readonly NotifyRule[]): string {
  return rules
    .map((r) => [r.event, r.reason, OUTCOME_EXIT[r.reason], r.must ?? "-", r.never ?? "-"].join("\t"))
    .map((line) => `${line}\n`)
    .join("");
}

/** A payload line hook.sh answered from the policy (never a person's prompt). */
export const POLICY_MARK = '"umbel_policy"';
