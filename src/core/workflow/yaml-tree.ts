import { type Document, isAlias, isMap, isPair, isScalar, isSeq, type Node } from "yaml";
import { LIMITS_DOC, WORKFLOW_LIMITS } from "./bounds.ts";
import { clip, quote } from "./excerpt.ts";
import { type IssuePath, TOO_DEEP } from "./yaml-read.ts";

export type TreeIssue = { offset: number; path: IssuePath; message: string };

const MERGE = "a merge (<<) takes a map, an alias of a map, or a list of them";

type Info = { size: number; height: number };
type Frame = { node: Node; path: IssuePath; depth: number; exit: boolean };

/**
 * Everything about the composed YAML that would make turning it into values unsafe, found in one
 * walk without recursion: duplicate keys, depth, aliases (defined earlier, not inside their own anchor, at most
 * `aliases` of them, expanding to at most `aliasNodes` nodes), merge sources that are not maps, and
 * too many steps. `toJS` is only called on a tree that passed.
 */
export function checkTree(doc: Document.Parsed): TreeIssue[] {
  const issues: TreeIssue[] = [];
  const anchors = new Map<string, Node>();
  const info = new Map<Node, Info>();
  const open = new Set<Node>();
  let aliases = 0;
  let expanded = 0;
  const root = doc.contents;
  if (!root) return issues;
  const stack: Frame[] = [{ node: root, path: [], depth: 1, exit: false }];
  const fail = (node: Node, path: IssuePath, message: string) => {
    issues.push({ offset: node.range?.[0] ?? 0, path, message });
  };
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { node, path, depth } = frame;
    if (frame.exit) {
      open.delete(node);
      info.set(node, measure(node, info));
      continue;
    }
    if (isAlias(node)) {
      aliases++;
      const target = anchors.get(node.source);
      const message =
        aliases === WORKFLOW_LIMITS.aliases + 1
          ? `more than ${WORKFLOW_LIMITS.aliases} aliases (${LIMITS_DOC})`
          : !target
            ? `alias *${clip(node.source)} has no anchor &${clip(node.source)} before it`
            : open.has(target)
              ? `alias *${clip(node.source)} is inside its own anchor`
              : null;
      if (message) {
        if (aliases <= WORKFLOW_LIMITS.aliases + 1) fail(node, path, message);
        continue;
      }
      const seen = info.get(target as Node) ?? { size: 1, height: 0 };
      expanded += seen.size;
      if (depth + seen.height - 1 > WORKFLOW_LIMITS.depth) return [...issues, at(node, path, TOO_DEEP)];
      if (expanded > WORKFLOW_LIMITS.aliasNodes)
        return [
          ...issues,
          at(node, path, `aliases expand to more than ${WORKFLOW_LIMITS.aliasNodes} nodes (${LIMITS_DOC})`),
        ];
      info.set(node, seen);
      continue;
    }
    if (node.anchor) anchors.set(node.anchor, node);
    if (!isMap(node) && !isSeq(node)) {
      info.set(node, { size: 1, height: 0 });
      continue;
    }
    if (depth > WORKFLOW_LIMITS.depth) return [...issues, at(node, path, TOO_DEEP)];
    open.add(node);
    stack.push({ ...frame, exit: true });
    const children: Frame[] = [];
    if (isSeq(node)) {
      if (path.length === 1 && path[0] === "steps" && node.items.length > WORKFLOW_LIMITS.steps) {
        const over = node.items[WORKFLOW_LIMITS.steps] as Node;
        const message = `more than ${WORKFLOW_LIMITS.steps} steps (${LIMITS_DOC})`;
        return [...issues, at(over, ["steps", WORKFLOW_LIMITS.steps], message)];
      }
      node.items.forEach((item, i) => {
        children.push({ node: item as Node, path: [...path, i], depth: depth + 1, exit: false });
      });
    } else {
      const keys = new Set<string>();
      for (const pair of node.items) {
        if (!isPair(pair)) continue;
        const key = isScalar(pair.key) ? String(pair.key.value) : "?";
        if (isScalar(pair.key) && keys.has(key))
          fail(pair.key as Node, [...path, key], `duplicate key ${quote(key)}: map keys must be unique`);
        keys.add(key);
        if (key === "<<" && isScalar(pair.key) && pair.value) {
          const bad = badMergeSource(pair.value as Node, anchors);
          if (bad) fail(bad, [...path, key], MERGE);
        }
        if (pair.key) children.push({ node: pair.key as Node, path, depth: depth + 1, exit: false });
        if (pair.value)
          children.push({ node: pair.value as Node, path: [...path, key], depth: depth + 1, exit: false });
      }
    }
    // Reversed so the stack pops them in file order: an anchor is seen before the aliases after it.
    for (let i = children.length - 1; i >= 0; i--) stack.push(children[i] as Frame);
  }
  return issues;
}

function at(node: Node, path: IssuePath, message: string): TreeIssue {
  return { offset: node.range?.[0] ?? 0, path, message };
}

/** The node that makes `value` a bad merge source, or null when it merges maps only. */
function badMergeSource(value: Node, anchors: Map<string, Node>): Node | null {
  const resolve = (node: Node) => (isAlias(node) ? (anchors.get(node.source) ?? null) : node);
  const direct = resolve(value);
  if (direct === null || isMap(direct)) return null; // a missing anchor is reported as such
  if (!isSeq(direct)) return value;
  for (const item of direct.items) {
    const source = resolve(item as Node);
    if (source !== null && !isMap(source)) return isSeq(value) ? (item as Node) : value;
  }
  return null;
}

/** A collection's size (nodes, aliases expanded) and height (levels of collections), from its children's. */
function measure(node: Node, info: Map<Node, Info>): Info {
  let size = 1;
  let height = 1;
  const add = (child: unknown) => {
    const seen = info.get(child as Node);
    if (!seen) return;
    size += seen.size;
    height = Math.max(height, seen.height + 1);
  };
  if (isSeq(node)) for (const item of node.items) add(item);
  if (isMap(node))
    for (const pair of node.items) {
      add(pair.key);
      add(pair.value);
    }
  return { size, height };
}
