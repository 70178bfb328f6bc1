import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument } from "yaml";
import { UsageError } from "../errors.ts";

/** A path into the parsed file, as zod reports it: ["steps", 1, "run"]. */
export type IssuePath = readonly (string | number)[];

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

export function parseYamlSource(text: string): ParsedYaml {
  const lineCounter = new LineCounter();
  // merge: `<<: *defaults` lets workers share settings, as in CI files.
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: true });
  const at = (offset: number) => {
    const { line, col } = lineCounter.linePos(offset);
    return { line: Math.max(1, line), col: Math.max(1, col) };
  };
  const errors = doc.errors.map((e) => ({ ...at(e.pos[0]), path: "", message: e.message }));
  const source: SourceMap = {
    position(issue) {
      const { node, keyNode } = walk(doc.contents, issue.path);
      const target = (issue.key ? (keyNode ?? node) : node) as YamlNode | null;
      const start = target?.range?.[0] ?? 0;
      if (issue.needle && target?.range) {
        const found = text.slice(start, target.range[1]).indexOf(issue.needle);
        if (found >= 0) return at(start + found);
      }
      return at(start);
    },
  };
  return { value: errors.length > 0 ? null : doc.toJS({ maxAliasCount: 1000 }), errors, source };
}

/** Follows the path through maps and sequences as far as the file goes. */
function walk(root: unknown, path: IssuePath): { node: unknown; keyNode: unknown } {
  let node: unknown = root;
  let keyNode: unknown = null;
  for (const segment of path) {
    if (isMap(node)) {
      const pair = node.items.find(
        (p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(segment),
      );
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
  return path.reduce<string>(
    (out, seg) => (typeof seg === "number" ? `${out}[${seg}]` : out ? `${out}.${seg}` : seg),
    "",
  );
}

export function positionIssues(source: SourceMap, issues: readonly WorkflowIssue[]): PositionedIssue[] {
  return issues
    .map((issue) => ({ ...source.position(issue), path: formatPath(issue.path), message: issue.message }))
    .sort((a, b) => a.line - b.line || a.col - b.col);
}

/** One error for all the problems, each line `file:line:col: path: message` (editors jump to it). */
export function workflowError(file: string, issues: readonly PositionedIssue[]): UsageError {
  const lines = issues.map((i) => `${file}:${i.line}:${i.col}: ${i.path ? `${i.path}: ` : ""}${i.message}`);
  const message =
    lines.length === 1
      ? (lines[0] ?? "")
      : `${file} is not valid (${lines.length} problems)\n${lines.join("\n")}`;
  return new UsageError(message, { file, issues: issues.map((i) => ({ file, ...i })) });
}
