import { hasSyntaxError, literalOf, type ShellNode, type ShellParse } from "./shell-tree.ts";
import { resolveWrapped, type Words } from "./wrappers.ts";

/** Every simple command a script may run, and why some of it cannot be told. */
export type ShellScan = {
  /** Each simple command's words (wrappers resolved: `sudo rm x` holds `sudo rm x` and `rm x`). */
  readonly invocations: readonly Words[];
  /** Why part of what it runs cannot be told (a syntax error, `eval "$x"`, …); empty when all can. */
  readonly uncertain: readonly string[];
};

/** `sh -c 'sh -c …'` nests at most this deep before it counts as uncertain. */
const MAX_DEPTH = 8;

/**
 * For a deny rule: every simple command anywhere in the script — lists, pipes, subshells, `$(…)`
 * and backticks, process substitutions, if/while/for/case and function bodies, `!` — with its
 * words after quote removal (assignments and redirections are not words), and the commands the
 * wrappers of core/fleet/policy/wrappers.ts run (`sh -c '…'` and `eval '…'` are scanned as scripts).
 */
export function scanScript(script: string, parse: ShellParse): ShellScan {
  const invocations: Words[] = [];
  const uncertain: string[] = [];
  const scan = (text: string, depth: number) => {
    if (depth > MAX_DEPTH) return void uncertain.push("shell scripts nested too deep");
    const tree = parse(text);
    if (tree === null) return void uncertain.push("the shell parser could not run");
    walk(tree, depth, false);
  };
  const invoke = (words: Words, depth: number) => {
    invocations.push(words);
    if (words[0] === null) return void uncertain.push("a command word is not a literal");
    if (depth > MAX_DEPTH) return void uncertain.push("commands nested too deep");
    resolveWrapped(words, {
      invoke: (inner) => invoke(inner, depth + 1),
      script: (inner) =>
        inner === null ? uncertain.push("a script that is not a literal") : scan(inner, depth + 1),
      uncertain: (why) => uncertain.push(why),
    });
  };
  const walk = (node: ShellNode, depth: number, quotedHeredoc: boolean) => {
    if (node.error) uncertain.push("the command has a syntax error");
    if (node.type === "command") {
      const words = commandWords(node);
      if (words.length > 0) invoke(words, depth);
    }
    // tree-sitter-bash 0.25.1 leaves a backtick inside a here-document's text (bash runs it): any
    // substitution left in a literal's text is one the parser did not see.
    if (!quotedHeredoc && LEAVES.has(node.type) && hidesSubstitution(node.text))
      uncertain.push("a substitution the parser did not read");
    if (!quotedHeredoc && node.type === "heredoc_body" && hidesInBody(node))
      uncertain.push("a substitution in a here-document the parser did not read");
    const quoted = node.type === "heredoc_redirect" ? isQuotedHeredoc(node) : quotedHeredoc;
    for (const child of node.children) walk(child, depth, quoted);
  };
  scan(script, 0);
  return { invocations, uncertain };
}

/**
 * For an allow rule: the words of the script when it is exactly one simple command of literal words
 * — no list, pipe, `&`, subshell, substitution, expansion, glob, redirection, here-document,
 * assignment, keyword or comment, and no syntax error — else null.
 */
export function simpleCommandOf(script: string, parse: ShellParse): string[] | null {
  const tree = parse(script);
  if (tree === null || tree.type !== "program" || hasSyntaxError(tree)) return null;
  const [command, ...others] = tree.children;
  if (command === undefined || others.length > 0 || command.type !== "command") return null;
  const words: string[] = [];
  for (const child of command.children) {
    const node = child.field === "name" && child.type === "command_name" ? child.children[0] : child;
    if (node === undefined || (child.field !== "name" && child.field !== "argument")) return null;
    if (child.field === "name" && child.children.length !== 1) return null;
    const literal = literalOf(node);
    if (literal === null) return null;
    words.push(literal);
  }
  return words.length > 0 ? words : null;
}

/** A command's name and arguments as literals (null where not one); assignments and redirections are not words. */
function commandWords(command: ShellNode): Words {
  const words: (string | null)[] = [];
  for (const child of command.children) {
    if (child.field === "name") {
      const [only, ...more] = child.children;
      words.push(only !== undefined && more.length === 0 ? literalOf(only) : null);
    } else if (child.field === "argument") words.push(literalOf(child));
  }
  return words;
}

const LEAVES = new Set(["word", "string_content", "heredoc_content"]);

/** An unescaped backtick or `$(` in a literal's text. */
function hidesSubstitution(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "`" || (c === "$" && text[i + 1] === "(")) return true;
  }
  return false;
}

/** A backtick in a here-document's text, or more `$(` than the parser read (it reads no backticks there). */
function hidesInBody(body: ShellNode): boolean {
  let opened = 0;
  const text = body.text;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\\") i++;
    else if (c === "`") return true;
    else if (c === "$" && text[i + 1] === "(" && text[i + 2] !== "(") opened++;
  }
  return opened > body.children.filter((c) => c.type === "command_substitution").length;
}

/** `<<'EOF'`, `<<"EOF"`, `<<\EOF`: the body is text, never expanded. */
function isQuotedHeredoc(redirect: ShellNode): boolean {
  const start = redirect.children.find((c) => c.type === "heredoc_start");
  return start !== undefined && /['"\\]/.test(start.text);
}
