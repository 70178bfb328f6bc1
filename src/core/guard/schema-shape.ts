/**
 * What ajv cannot be given: a schema nested deeper than its compiler's recursion survives (5,000
 * levels overflowed the stack; claude 2.1.332 says "Maximum call stack size exceeded" too), and a
 * `$ref` loop that checks no value (`{"$ref":"#"}`, a → b → a): ajv recursed forever compiling it.
 * Both walks here are iterative. Recursion through a value (`properties.n: {"$ref":"#"}`) is no loop.
 */

/** How deep a schema document may nest (objects and arrays); ajv compiled 1,200 levels of `properties`. */
export const MAX_SCHEMA_DEPTH = 512;

/** Whether the JSON value nests more than `limit` levels (counted without recursion). */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop() as [unknown, number];
    if (node === null || typeof node !== "object") continue;
    if (depth > limit) return true;
    for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return false;
}

/** Keywords whose subschemas apply to the same value (a cycle through them checks nothing new). */
const IN_PLACE_ONE = ["not", "if", "then", "else"] as const;
const IN_PLACE_LIST = ["allOf", "anyOf", "oneOf"] as const;
const IN_PLACE_MAP = ["dependentSchemas", "dependencies"] as const;
/** Keywords whose values are data, not schemas: a `$ref` in them refers to nothing. */
const DATA = new Set(["const", "enum", "default", "examples"]);

/**
 * A chain of `$ref`s and in-place applicators that comes back to where it started, as JSON
 * pointers (`#/$defs/a`, `#/$defs/b`, `#/$defs/a`); null when there is none. Refs outside the
 * document (a URI, an $anchor) are left to ajv.
 */
export function findRefLoop(schema: object): string[] | null {
  const edges = new Map<string, string[]>();
  const nodes = new Map<string, object>();
  const walk: [unknown, string][] = [[schema, ""]];
  while (walk.length > 0) {
    const [node, at] = walk.pop() as [unknown, string];
    if (node === null || typeof node !== "object") continue;
    nodes.set(at, node);
    if (Array.isArray(node)) {
      for (const [i, child] of node.entries()) walk.push([child, `${at}/${i}`]);
      continue;
    }
    const record = node as Record<string, unknown>;
    edges.set(at, inPlaceEdges(schema, record, at));
    for (const [key, child] of Object.entries(record))
      if (!DATA.has(key)) walk.push([child, `${at}/${escapePointer(key)}`]);
  }
  // Depth-first over the in-place edges, with an explicit stack: grey nodes are on the path.
  const state = new Map<string, "grey" | "black">();
  for (const start of nodes.keys()) {
    if (state.has(start)) continue;
    const path: string[] = [start];
    const next: number[] = [0];
    state.set(start, "grey");
    while (path.length > 0) {
      const at = path.at(-1) as string;
      const out = edges.get(at) ?? [];
      const i = next[next.length - 1] as number;
      if (i >= out.length) {
        state.set(at, "black");
        path.pop();
        next.pop();
        continue;
      }
      next[next.length - 1] = i + 1;
      const to = out[i] as string;
      if (state.get(to) === "grey") return [...path.slice(path.indexOf(to)), to].map((p) => `#${p}`);
      if (state.has(to) || !nodes.has(to)) continue;
      state.set(to, "grey");
      path.push(to);
      next.push(0);
    }
  }
  return null;
}

function inPlaceEdges(root: object, node: Record<string, unknown>, at: string): string[] {
  const out: string[] = [];
  for (const key of ["$ref", "$dynamicRef"]) {
    const ref = node[key];
    if (typeof ref === "string" && ref.startsWith("#") && (ref === "#" || ref.startsWith("#/"))) {
      const target = decodePointer(ref.slice(1));
      if (target !== null && resolves(root, target)) out.push(target);
    }
  }
  for (const key of IN_PLACE_ONE) if (isObject(node[key])) out.push(`${at}/${key}`);
  for (const key of IN_PLACE_LIST) {
    const list = node[key];
    if (!Array.isArray(list)) continue;
    for (const [i, item] of list.entries()) if (isObject(item)) out.push(`${at}/${key}/${i}`);
  }
  for (const key of IN_PLACE_MAP) {
    const map = node[key];
    if (isObject(map))
      for (const [name, sub] of Object.entries(map))
        if (isObject(sub)) out.push(`${at}/${key}/${escapePointer(name)}`);
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `#/$defs/a%20b` → `/$defs/a b` in the walk's own spelling (keys escaped as JSON pointer tokens). */
function decodePointer(fragment: string): string | null {
  try {
    return decodeURIComponent(fragment);
  } catch {
    return null;
  }
}

function resolves(root: object, pointer: string): boolean {
  let at: unknown = root;
  for (const token of pointer.split("/").slice(1)) {
    const key = token.replace(/~1/g, "/").replace(/~0/g, "~");
    if (at === null || typeof at !== "object" || !(key in at)) return false;
    at = (at as Record<string, unknown>)[key];
  }
  return at !== null && typeof at === "object";
}

function escapePointer(key: string): string {
  return key.replace(/~/g, "~0").replace(/\//g, "~1");
}
