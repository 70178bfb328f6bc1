import { Composer, type Document, Lexer, LineCounter, Parser } from "yaml";
import { LIMITS_DOC, TOO_BIG, WORKFLOW_LIMITS } from "./bounds.ts";
import { clip } from "./excerpt.ts";

/** A path into the parsed file, as zod reports it: ["steps", 1, "run"]. */
export type IssuePath = readonly (string | number)[];

/** A problem found while reading the YAML, at a character offset. */
export type OffsetIssue = { offset: number; message: string };

export type ReadYaml = {
  /** Null when the file was refused before composing (too big, too deep). */
  doc: Document.Parsed | null;
  issues: OffsetIssue[];
  lineCounter: LineCounter;
};

export const TOO_DEEP = `nested deeper than ${WORKFLOW_LIMITS.depth} levels (a workflow needs 5; ${LIMITS_DOC})`;

/** Lexer tokens that stand for no source text (document mode, flow error end, scalar marker). */
const CONTROL = new Set(["\x02", "\x18", "\x1f"]);

/**
 * The size limit, then one pass of the YAML lexer that stops at the depth limit before the parser
 * and composer (recursive: 20,000 levels overflowed the stack) see the file, then the composed
 * document. Errors the yaml package reports are reworded where its words are about its insides.
 */
export function readYaml(text: string): ReadYaml {
  const lineCounter = new LineCounter();
  if (utf8Length(text) > WORKFLOW_LIMITS.bytes) {
    return { doc: null, issues: [{ offset: 0, message: TOO_BIG }], lineCounter };
  }
  const parser = new Parser(lineCounter.addNewLine);
  lineCounter.addNewLine(0); // Parser.parse() does this; next() token by token does not
  const guard = { tooDeepAt: -1 };
  // uniqueKeys off: the package compares each key with every earlier one (75,000 workers took
  // 135 s); yaml-tree.ts finds duplicates with a set per map instead.
  const composer = new Composer({ prettyErrors: false, uniqueKeys: false, merge: true, stringKeys: true });
  const docs = [...composer.compose(guardedTokens(text, parser, guard), true, text.length)];
  if (guard.tooDeepAt >= 0)
    return { doc: null, issues: [{ offset: guard.tooDeepAt, message: TOO_DEEP }], lineCounter };
  const [doc, second] = docs;
  if (!doc) return { doc: null, issues: [{ offset: 0, message: "not a YAML document" }], lineCounter };
  const issues: OffsetIssue[] = doc.errors.map((e) => ({
    offset: e.pos[0],
    message: reword(e.code, e.message),
  }));
  if (second)
    issues.push({
      offset: second.range[0],
      message: "a second YAML document (after ---); a workflow file holds one",
    });
  return { doc, issues, lineCounter };
}

/**
 * The lexer's tokens on their way to the parser, counting how deep they nest: each flow bracket,
 * and each block indicator (`-`, `?`, `:`) on the current line, opens a level. Indentation opens
 * levels too, but costs n²/2 bytes for n levels (at most ~1,450 in 1 MiB, which the composer
 * survives), so the exact depth is checked on the composed tree.
 */
function* guardedTokens(text: string, parser: Parser, guard: { tooDeepAt: number }) {
  let offset = 0;
  let flow = 0;
  let line = 0;
  let scalarNext = false;
  for (const token of new Lexer().lex(text)) {
    if (scalarNext) scalarNext = false;
    else if (token === "\x1f") scalarNext = true;
    else if (token === "[" || token === "{") flow++;
    else if (token === "]" || token === "}") flow = Math.max(0, flow - 1);
    else if (flow === 0 && (token === "-" || token === "?" || token === ":")) line++;
    else if (flow === 0 && (token === "\n" || token === "\r\n")) line = 0;
    if (flow + line > WORKFLOW_LIMITS.depth) {
      guard.tooDeepAt = offset;
      return;
    }
    if (!CONTROL.has(token)) offset += token.length;
    yield* parser.next(token);
  }
  yield* parser.end();
}

function reword(code: string, message: string): string {
  if (code === "RESOURCE_EXHAUSTION") return TOO_DEEP;
  if (code === "NON_STRING_KEY") return "a key must be a string (not a list, a map or an alias)";
  // The yaml package quotes source in a few messages ("Not a YAML token: …"): keep them short.
  return clip(message.split("\n")[0] ?? message, 120);
}

/** UTF-8 bytes, without encoding when the length alone decides. */
function utf8Length(text: string): number {
  if (text.length > WORKFLOW_LIMITS.bytes || text.length * 3 <= WORKFLOW_LIMITS.bytes) return text.length;
  return new TextEncoder().encode(text).length;
}
