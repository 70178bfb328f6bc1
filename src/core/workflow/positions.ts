import { isMap, isPair, isScalar, isSeq, type Pair, type YAMLMap } from "yaml";
import { UsageError } from "../errors.ts";
import { WORKFLOW_LIMITS } from "./bounds.ts";
import { clip } from "./excerpt.ts";
import { notAWorkflow } from "./file-kind.ts";
import { type IssuePath, type OffsetIssue, readYaml } from "./yaml-read.ts";
import { checkTree } from "./yaml-tree.ts";

/**
 * A problem found in a workflow, before it has a position. `key` points at the key itself (an
 * unknown key, a bad name) rather than its value; `needle` is text to find inside the value (a
 * template reference inside a prompt).
 */
export type WorkflowIssue = {
  readonly path: IssuePath;
  readonly message: string;
  readonly key?: boolean;
  readonly needle?: string;
};

export type PositionedIssue = { line: number; col: number; path: string; message: string };

export type SourceMap = {
  /** 1-based line and column of the deepest node on `path` that exists in the file. */
  position(issue: WorkflowIssue): { line: number; col: number };
};

export type ParsedYaml = {
  value: unknown;
  /** YAML syntax errors, already positioned. */
  errors: PositionedIssue[];
  source: SourceMap;
};

type YamlNode = { range?: [number, number, number] | null | undefined };

/**
 * Text → values, or positioned problems: the limits and the YAML syntax (yaml-read.ts), whether it
 * is a workflow at all (file-kind.ts), then what would make building the values unsafe
 * (yaml-tree.ts). Building them cannot throw after that; if it does anyway, it is a problem at 1:1,
 * never an internal error.
 */
export function parseYamlSource(text: string): ParsedYaml {
  const read = readYaml(text);
  const at = (offset: number) => {
    const { line, col } = read.lineCounter.linePos(offset);
    return { line: Math.max(1, line), col: Math.max(1, col) };
  };
  const root = read.doc?.contents ?? null;
  const source: SourceMap = {
    position(issue) {
      const { node, keyNode } = walk(root, issue.path);
      const target = (issue.key ? (keyNode ?? node) : node) as YamlNode | null;
      const start = target?.range?.[0] ?? 0;
      if (issue.needle && target?.range) {
        const found = text.slice(start, target.range[1]).indexOf(issue.needle);
        if (found >= 0) return at(start + found);
      }
      return at(start);
    },
  };
  const failed = (errors: PositionedIssue[]): ParsedYaml => ({ value: null, errors, source });
  const refusal = read.doc ? notAWorkflow(root) : null;
  if (refusal) return failed([{ line: 1, col: 1, path: "", message: refusal }]);
  const problems: (OffsetIssue & { path?: IssuePath })[] =
    read.doc && read.issues.length === 0 ? checkTree(read.doc) : read.issues;
  if (!read.doc || problems.length > 0)
    return failed(
      problems.map((p) => ({ ...at(p.offset), path: formatPath(p.path ?? []), message: p.message })),
    );
  try {
    // The tree's aliases were counted and bounded above; the package's own count would refuse less.
    return { value: read.doc.toJS({ maxAliasCount: -1 }), errors: [], source };
  } catch (error) {
    return failed([
      { line: 1, col: 1, path: "", message: `cannot read the YAML: ${clip((error as Error).message, 120)}` },
    ]);
  }
}

/** Pairs by key, per map: finding a key is then O(1) however many problems a big map has. */
const pairsByKey = new WeakMap<YAMLMap, Map<string, Pair>>();

/** Follows the path through maps and sequences as far as the file goes. */
function walk(root: unknown, path: IssuePath): { node: unknown; keyNode: unknown } {
  let node: unknown = root;
  let keyNode: unknown = null;
  for (const segment of path) {
    if (isMap(node)) {
      let pairs = pairsByKey.get(node);
      if (!pairs) {
        pairs = new Map();
        for (const p of node.items)
          if (isPair(p) && isScalar(p.key) && !pairs.has(String(p.key.value)))
            pairs.set(String(p.key.value), p);
        pairsByKey.set(node, pairs);
      }
      const pair = pairs.get(String(segment));
      if (!pair) break;
      keyNode = pair.key;
      node = pair.value ?? pair.key;
    } else if (isSeq(node)) {
      const item = node.items[Number(segment)];
      if (item === undefined) break;
      keyNode = null;
      node = item;
    } else break;
  }
  return { node, keyNode };
}

/** `steps[1].run`, `workers.fixer.env.TOKEN`. */
function formatPath(path: IssuePath): string {
  return path.reduce<string>((out, seg) => {
    if (typeof seg === "number") return `${out}[${seg}]`;
    const key = clip(seg);
    return out ? `${out}.${key}` : key;
  }, "");
}

export function positionIssues(source: SourceMap, issues: readonly WorkflowIssue[]): PositionedIssue[] {
  return issues
    .map((issue) => ({ ...source.position(issue), path: formatPath(issue.path), message: issue.message }))
    .sort((a, b) => a.line - b.line || a.col - b.col);
}

/**
 * One error for all the problems, each line `file:line:col: path: message` (editors jump to it).
 * At most WORKFLOW_LIMITS.problems are listed, each line bounded, so an error about a file that is
 * not a workflow can only quote short excerpts of it; `data.total` counts them all.
 */
export function workflowError(file: string, issues: readonly PositionedIssue[]): UsageError {
  const max = WORKFLOW_LIMITS.problems;
  const shown = issues.slice(0, max).map((i) => ({ ...i, message: clip(i.message, 400) }));
  const lines = shown.map((i) => `${file}:${i.line}:${i.col}: ${i.path ? `${i.path}: ` : ""}${i.message}`);
  const more = issues.length - shown.length;
  const message =
    lines.length === 1 && more === 0
      ? (lines[0] ?? "")
      : more === 0
        ? `${file} is not valid (${lines.length} problems)\n${lines.join("\n")}`
        : `${file} is not valid (${issues.length} problems; the first ${max} follow)\n${lines.join("\n")}\n… and ${more} more problem${more === 1 ? "" : "s"} not shown`;
  return new UsageError(message, {
    file,
    issues: shown.map((i) => ({ file, ...i })),
    ...(more > 0 ? { total: issues.length } : {}),
  });
}
