import type { NotifyRule } from "../providers/types.ts";
import { OUTCOME_EXIT } from "../wait/outcome.ts";

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

/**
 * A payload line hook.sh answered from the policy (never a person's prompt): hook.sh writes the
 * marker as the line's first member, before the CLI's own, where no text of a model can be.
 */
export const POLICY_MARK = '^\\{"umbel_policy":';

// Compact JSON (as every CLI writes its hook payloads): a string, a scalar, and an object or array
// holding no object deeper than one level. Each consumes a whole value, so a match of topLevel()
// can only be at a member of the payload itself, never inside a tool call's arguments (deeper
// values are not consumed: such a payload does not match, it is never misread).
const STRING = '"([^"\\\\]|\\\\.)*"';
const FLAT = `\\{([^{}"]|${STRING})*\\}`;
const VALUE = `(${STRING}|[-+.0-9A-Za-z]+|${FLAT}|\\[([^][{}"]|${STRING}|${FLAT})*\\])`;

/** An extended regex matching a payload line whose top-level members include `member` (a regex). */
export function topLevel(member: string): string {
  return `^\\{(${STRING}:${VALUE},)*${member}`;
}
