import { WORKFLOW_LIMITS } from "./bounds.ts";

/**
 * Text from the file inside an error is always a short excerpt: a workflow error once echoed every
 * line of /etc/shadow as "unknown key" errors. These bound what one message can quote.
 */

/** `"value"`, JSON-quoted, cut to the excerpt limit with an ellipsis. */
export function quote(value: string, max: number = WORKFLOW_LIMITS.excerpt): string {
  return JSON.stringify(clip(value, max));
}

/** The text cut to `max` characters, with an ellipsis when cut. */
export function clip(value: string, max: number = WORKFLOW_LIMITS.excerpt): string {
  return value.length <= max ? value : `${value.slice(0, max - 1)}…`;
}

/** `a, b, c` or `a, b, c, … (12 in all)`: a list from the file, bounded. */
export function listSome(items: readonly string[], max = 8): string {
  const shown = items.slice(0, max).map((item) => clip(item));
  return items.length <= max ? shown.join(", ") : `${shown.join(", ")}, … (${items.length} in all)`;
}
