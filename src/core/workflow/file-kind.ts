import { isMap, isScalar, isSeq } from "yaml";
import { suggestKey } from "../common/suggest.ts";

const TOP = ["workers", "steps"];

/**
 * Why the file is not a workflow at all, or null when it may be one. A file that is not a mapping,
 * or a mapping with neither `workers` nor `steps` (nor a near miss like `worker`), gets this one
 * line instead of a problem per key: `umbel run /etc/shadow` once answered with every line of it.
 * An empty file (nothing, comments, a bare `---`) says so: the schema's words were "expected
 * object, received null".
 */
export function notAWorkflow(contents: unknown): string | null {
  const why = (what: string) =>
    `not a umbel workflow: ${what}; a workflow is a mapping with \`workers\` and \`steps\` (docs/workflows.md)`;
  const empty = why("the file is empty (no YAML value, only blank lines or comments)");
  if (contents === null || contents === undefined) return empty;
  if (isSeq(contents)) return why("the top level is a list");
  if (isScalar(contents)) {
    const value = contents.value;
    if (value === null || value === undefined) return contents.source ? why("the top level is null") : empty;
    const kind = typeof value === "object" ? "value" : typeof value;
    return why(`the top level is a ${kind}`);
  }
  if (!isMap(contents)) return null;
  const keys = contents.items.flatMap((pair) => (isScalar(pair.key) ? [String(pair.key.value)] : []));
  if (keys.some((key) => TOP.includes(key) || suggestKey(key, TOP) !== undefined)) return null;
  if (keys.length === 0) return why("the top level is an empty mapping");
  const other = keys.length === 1 ? "1 other key" : `${keys.length} other keys`;
  return why(`the top level has neither \`workers\` nor \`steps\` (it has ${other})`);
}
