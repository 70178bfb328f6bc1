import { isRecord } from "../common/json.ts";
import { STRUCTURED_SERVER_NAME, STRUCTURED_TOOL } from "../guard/tool.ts";

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

/** Shell tools: claude Bash, codex exec_command / shell / local_shell, gemini run_shell_command, opencode bash. */
const COMMAND_TOOLS = new Set([
  "Bash",
  "exec_command",
  "shell",
  "shell_command",
  "local_shell",
  "run_shell_command",
  "bash",
]);
/** Tools that write a whole file (a new one, as far as a transcript tells) and tools that edit one. */
const WRITE_TOOLS = new Set(["Write", "write_file", "write"]);
const EDIT_TOOLS = new Set(["Edit", "MultiEdit", "NotebookEdit", "replace", "edit"]);
const WEB_TOOLS = new Set(["WebSearch", "google_web_search", "web_search", "websearch"]);

export function toolKind(name: string, input: unknown): ToolKind {
  const args = isRecord(input) ? input : {};
  if (isStructuredTool(name)) return { kind: "structured" };
  if (COMMAND_TOOLS.has(name)) {
    const command = commandOf(args);
    // codex's TUI writes files with exec_command `apply_patch <<'EOF' …`; codex exec calls that a file change.
    if (/^apply_patch\b/.test(command)) return { kind: "file", changes: patchChanges(command) };
    return { kind: "command", command };
  }
  if (name === "apply_patch")
    return { kind: "file", changes: patchChanges(String(args.input ?? args.patch ?? "")) };
  const path = str(args.file_path) ?? str(args.filePath) ?? str(args.notebook_path) ?? str(args.path);
  if (WRITE_TOOLS.has(name) && path !== null) return { kind: "file", changes: [{ path, kind: "add" }] };
  if (EDIT_TOOLS.has(name) && path !== null) return { kind: "file", changes: [{ path, kind: "update" }] };
  if (WEB_TOOLS.has(name)) return { kind: "web", query: str(args.query) ?? "" };
  // claude: mcp__<server>__<tool>; gemini: mcp_<server>_<tool> (a server name with `_` splits early).
  const claudeMcp = /^mcp__(.+?)__(.+)$/.exec(name);
  if (claudeMcp) return { kind: "mcp", server: claudeMcp[1] ?? "", tool: claudeMcp[2] ?? "" };
  const geminiMcp = /^mcp_([^_]+)_(.+)$/.exec(name);
  if (geminiMcp) return { kind: "mcp", server: geminiMcp[1] ?? "", tool: geminiMcp[2] ?? "" };
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
 * A shell tool's output and exit code from the text the model saw: codex's exec_command header
 * (`Process exited with code N` … `Output:`), gemini's (`Output: …`, `Exit Code: N`), claude's
 * failed Bash (`Exit code N` first); else the whole text, and 1 or 0 from whether it failed.
 */
export function commandResult(text: string, isError: boolean): { output: string; exitCode: number } {
  const codex = /^Process exited with code (-?\d+)$/m.exec(text.split("\nOutput:\n")[0] ?? "");
  if (codex && text.includes("\nOutput:\n"))
    return {
      output: text.slice(text.indexOf("\nOutput:\n") + "\nOutput:\n".length),
      exitCode: Number(codex[1]),
    };
  const gemini =
    /(?:^|\n)Output: ([\s\S]*?)(?:\n(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID):|$)/.exec(
      text,
    );
  if (gemini) {
    const code = /\nExit Code: (-?\d+)/.exec(text);
    const output = gemini[1] === "(empty)" ? "" : (gemini[1] ?? "");
    return { output, exitCode: code ? Number(code[1]) : isError ? 1 : 0 };
  }
  const claude = /^Exit code (-?\d+)\n?/.exec(text);
  if (claude) return { output: text.slice(claude[0].length), exitCode: Number(claude[1]) };
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

function str(value: unknown): string | null {
  return typeof value === "string" && value !== "" ? value : null;
}
