/**
 * A shell script's syntax tree as umbel reads it: the shape of tree-sitter-bash's concrete tree
 * (adapters/fleet/shell-parser.ts converts it), so the policy's rules stay pure and the parser can be
 * swapped. Node types are tree-sitter-bash 0.25.1's (`command`, `command_name`, `word`, `string`,
 * `raw_string`, `concatenation`, `command_substitution`, …); anonymous tokens (`;`, `&`, `"`) are
 * nodes too.
 */
export type ShellNode = {
  readonly type: string;
  readonly named: boolean;
  /** The field this node fills in its parent (`name`, `argument`, `redirect`, `body`, …). */
  readonly field: string | null;
  readonly text: string;
  /** An ERROR node or a MISSING token: the parser recovered from a syntax error here. */
  readonly error: boolean;
  readonly children: readonly ShellNode[];
};

/** Parses a script (bash syntax); null when the parser could not run on it. */
export type ShellParse = (script: string) => ShellNode | null;

/** True when the tree holds a syntax error anywhere. */
export function hasSyntaxError(node: ShellNode): boolean {
  return node.error || node.children.some(hasSyntaxError);
}

/**
 * Characters that make an unquoted word more than its text: expansions (`$`, a backtick), globs
 * (`*`, `?`, `[`), brace expansion (`{`, `}`), and what only a parser error
 * leaves in a word (`(`, `)`, `<`, `>`, `;`, `&`, `|`, `!`, whitespace).
 */
const UNQUOTED_SPECIAL = new Set([..."$`*?[]{}()<>;&|! \t\n"]);

/**
 * The word's value after quote removal when it is a literal (what the shell passes is exactly this
 * text, whatever the files, the environment or the shell's options), else null. Only plain words,
 * '…', "…" without expansions, numbers and their concatenations are literals; `$'…'`, `$"…"`,
 * expansions, substitutions, globs, braces and tildes are not.
 */
export function literalOf(node: ShellNode): string | null {
  switch (node.type) {
    case "word":
      return unquotedLiteral(node.text);
    case "number":
      return /^[0-9A-Za-z#_+-]+$/.test(node.text) ? node.text : null;
    case "raw_string":
      return node.text.length >= 2 && node.text.startsWith("'") && node.text.endsWith("'")
        ? node.text.slice(1, -1)
        : null;
    case "string":
      return doubleQuotedLiteral(node);
    case "concatenation": {
      let value = "";
      for (const part of node.children) {
        const literal = literalOf(part);
        if (literal === null) return null;
        value += literal;
      }
      return value;
    }
    default:
      return null;
  }
}

/** An unquoted word's text: `\x` is x, a backslash-newline is nothing; any special character is not literal. */
function unquotedLiteral(text: string): string | null {
  let value = "";
  for (let i = 0; i < text.length; i++) {
    const c = text[i] ?? "";
    if (c === "\\") {
      if (i + 1 >= text.length) return null;
      const next = text[++i] ?? "";
      if (next !== "\n") value += next;
    } else if (UNQUOTED_SPECIAL.has(c)) return null;
    // Tilde expansion: a word's leading ~, and bash's after = or : (`--dir=~/x`, `a=b:~/x`).
    else if (c === "~" && (i === 0 || text[i - 1] === "=" || text[i - 1] === ":")) return null;
    else value += c;
  }
  return value;
}

/** "…" holding only text: `\$ \` \" \\` lose their backslash, a backslash-newline is nothing. */
function doubleQuotedLiteral(node: ShellNode): string | null {
  let value = "";
  for (const part of node.children) {
    if (!part.named && part.type === '"') continue;
    if (part.type !== "string_content") return null;
    const text = part.text;
    for (let i = 0; i < text.length; i++) {
      const c = text[i] ?? "";
      if (c === "$" || c === "`") return null;
      if (c === "\\" && i + 1 < text.length) {
        const next = text[i + 1] ?? "";
        if ('$`"\\\n'.includes(next)) {
          i++;
          if (next !== "\n") value += next;
          continue;
        }
      }
      value += c;
    }
  }
  return value;
}

/** The last path segment (`/bin/rm` → rm, `./rm` → rm): how a command word names its program. */
export function commandBasename(word: string): string {
  return word.slice(word.lastIndexOf("/") + 1);
}
