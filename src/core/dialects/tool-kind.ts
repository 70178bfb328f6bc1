import { isRecord } from "../common/json.ts";
import { STRUCTURED_SERVER_NAME, STRUCTURED_TOOL } from "../guard/tool.ts";
import { listProviders } from "../providers/registry.ts";
import type { ToolVocabulary } from "../providers/types.ts";

/**
 * What a tool call is, in the terms codex exec's items use, whichever CLI made it: a shell command,
 * a file change, an MCP tool, a web search, umbel's own StructuredOutput (never printed by the gemini
 * and codex dialects: their CLIs have no such tool), or anything else.
 */
export type ToolKind =
  | { readonly kind: "command"; readonly command: string }
  | { readonly kind: "file"; readonly changes: readonly FileChange[] }
  | { readonly kind: "mcp"; readonly server: string; readonly tool: string }
  | { readonly kind: "web"; readonly query: string }
  | { readonly kind: "structured" }
  | { readonly kind: "other" };

export type FileChange = { readonly path: string; readonly kind: "add" | "update" | "delete" };

/**
 * Every registered CLI's tool vocabulary (its provider's `tools`): a dialect reads a transcript of any
 * of them, and their names do not collide.
 */
const VOCABULARIES = listProviders().map((p) => p.tools);
const namesOf = (pick: (t: ToolVocabulary) => readonly string[] | undefined) =>
  new Set(VOCABULARIES.flatMap((t) => pick(t) ?? []));
const COMMAND_TOOLS = namesOf((t) => t.command);
const PATCH_TOOLS = namesOf((t) => t.patch);
/** Tools that write a whole file (a new one, as far as a transcript tells) and tools that edit one. */
const WRITE_TOOLS = namesOf((t) => t.write);
const EDIT_TOOLS = namesOf((t) => t.edit);
const WEB_TOOLS = namesOf((t) => t.web);
const READ_TOOLS = namesOf((t) => t.read);
const SEARCH_TOOLS = namesOf((t) => t.search);
const FETCH_TOOLS = namesOf((t) => t.fetch);
const DELEGATE_TOOLS = namesOf((t) => t.delegate);
const TODO_TOOLS = new Map(
  VOCABULARIES.flatMap((t) => (t.todo ? [[t.todo.name, t.todo.list] as const] : [])),
);

/**
 * What else a tool does, by every CLI's vocabulary (ACP's kinds of tool call beyond toolKind's):
 * reads a file, finds files, fetches a URL, runs a subagent, or keeps the todo list (its list's key).
 */
export type ToolRole =
  | { readonly role: "read" | "search" | "fetch" | "delegate" }
  | { readonly role: "todo"; readonly list: string }
  | { readonly role: "other" };

export function toolRole(name: string): ToolRole {
  const list = TODO_TOOLS.get(name);
  if (list !== undefined) return { role: "todo", list };
  if (READ_TOOLS.has(name)) return { role: "read" };
  if (SEARCH_TOOLS.has(name)) return { role: "search" };
  if (FETCH_TOOLS.has(name)) return { role: "fetch" };
  if (DELEGATE_TOOLS.has(name)) return { role: "delegate" };
  return { role: "other" };
}

export function toolKind(name: string, input: unknown): ToolKind {
  const args = isRecord(input) ? input : {};
  if (isStructuredTool(name)) return { kind: "structured" };
  if (COMMAND_TOOLS.has(name)) {
    const command = commandOf(args);
    // codex's TUI writes files with exec_command `apply_patch <<'EOF' …`; codex exec calls that a file change.
    if ([...PATCH_TOOLS].some((tool) => startsWithWord(command, tool)))
      return { kind: "file", changes: patchChanges(command) };
    return { kind: "command", command };
  }
  if (PATCH_TOOLS.has(name))
    return { kind: "file", changes: patchChanges(String(args.input ?? args.patch ?? "")) };
  const path = str(args.file_path) ?? str(args.filePath) ?? str(args.notebook_path) ?? str(args.path);
  if (WRITE_TOOLS.has(name) && path !== null) return { kind: "file", changes: [{ path, kind: "add" }] };
  if (EDIT_TOOLS.has(name) && path !== null) return { kind: "file", changes: [{ path, kind: "update" }] };
  if (WEB_TOOLS.has(name)) return { kind: "web", query: str(args.query) ?? "" };
  for (const t of VOCABULARIES) {
    const mcp = t.mcpName?.exec(name);
    if (mcp) return { kind: "mcp", server: mcp[1] ?? "", tool: mcp[2] ?? "" };
  }
  return { kind: "other" };
}

/** umbel's StructuredOutput as each CLI names it (claude, gemini: prefixed; codex: the bare name). */
export function isStructuredTool(name: string): boolean {
  return name === STRUCTURED_TOOL || name.includes(STRUCTURED_SERVER_NAME);
}

/** A tool result's text: a string, claude's text blocks joined, or the JSON of anything else. */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((b) => (isRecord(b) && typeof b.text === "string" ? b.text : "")).join("");
  return content == null ? "" : JSON.stringify(content);
}

/**
 * A shell tool's output and exit code from the text the model saw, in the shape of the CLI that ran
 * it (its provider's tools.commandResult: codex's exec_command header, gemini's `Output: …`, claude's
 * failed Bash); else the whole text, and 1 or 0 from whether it failed.
 */
export function commandResult(text: string, isError: boolean): { output: string; exitCode: number } {
  for (const t of VOCABULARIES) {
    const found = t.commandResult?.(text, isError);
    if (found) return found;
  }
  return { output: text, exitCode: isError ? 1 : 0 };
}

/** codex's apply_patch text: `*** Add File: p`, `*** Update File: p`, `*** Delete File: p`. */
function patchChanges(patch: string): FileChange[] {
  const kinds = { Add: "add", Update: "update", Delete: "delete" } as const;
  return [...patch.matchAll(/^\*\*\* (Add|Update|Delete) File: (.+)$/gm)].map((m) => ({
    path: (m[2] ?? "").trim(),
    kind: kinds[m[1] as keyof typeof kinds],
  }));
}

/** The command line: a string (`command`, codex's `cmd`), or an argv array joined by spaces. */
function commandOf(args: Record<string, unknown>): string {
  const value = args.command ?? args.cmd;
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map(String).join(" ");
  return "";
}

/** `text` begins with the word `word` (`apply_patch <<'EOF'`, `apply_patch<<'EOF'`; not `apply_patches`). */
function startsWithWord(text: string, word: string): boolean {
  return text.startsWith(word) && !/\w/.test(text.charAt(word.length));
}

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
