import { isRecord } from "../../common/json.ts";
import type { PermissionMode } from "../../schemas.ts";

/**
 * gemini -p's tools in the TUI (umbel -p, spawn --non-interactive). gemini 0.61.0's policy engine
 * turns every "ask the user" into "deny" when it is not interactive, and leaves a tool denied for
 * every argument out of the request altogether; the model that calls one anyway is told
 * `Tool "run_shell_command" not found. Did you mean one of: …`. The TUI keeps asking, so umbel
 * excludes the same tools in the worker's settings (`tools.exclude`): measured per approval mode as
 * the function declarations of the first request, TUI against gemini -p, on the stub model
 * (docs/providers.md, "gemini -p").
 */
const SHELL = ["run_shell_command", "list_background_processes", "read_background_output"];
const ASKING = ["ask_user", "write_todos", "activate_skill"];
const LEFT_OUT: Readonly<Record<string, readonly string[]>> = {
  default: ["replace", "write_file", "web_fetch", ...SHELL, ...ASKING],
  auto_edit: [...SHELL, ...ASKING],
  plan: ["web_fetch", "ask_user", "activate_skill"],
  yolo: ["ask_user"],
};

/** gemini's --approval-mode for umbel's permission modes; the others are usage errors. */
export const GEMINI_APPROVAL_MODES: Partial<Record<PermissionMode, string>> = {
  default: "default",
  manual: "default",
  acceptEdits: "auto_edit",
  plan: "plan",
  bypassPermissions: "yolo",
};

/** The --approval-mode a worker runs with (none given: gemini's default). */
export function geminiApprovalMode(input: {
  readonly unattended?: boolean | undefined;
  readonly permissionMode?: PermissionMode | undefined;
}): string {
  if (input.unattended) return "yolo";
  return (input.permissionMode && GEMINI_APPROVAL_MODES[input.permissionMode]) || "default";
}

/**
 * The tools gemini -p would not offer in this approval mode. A tool named in --allowed-tools is
 * offered (with an argument, `run_shell_command(git diff)`, too: gemini -p then denies the other
 * commands when they are called), and the background-shell tools stay out all the same (measured).
 */
export function geminiNonInteractiveExcludes(
  approvalMode: string,
  allowedTools: readonly string[] | undefined,
): string[] {
  const allowed = new Set((allowedTools ?? []).map((tool) => tool.replace(/\(.*$/s, "").trim()));
  return (LEFT_OUT[approvalMode] ?? LEFT_OUT.default ?? []).filter((tool) => !allowed.has(tool));
}

/**
 * The MCP servers whose tools gemini -p would not offer: every server not trusted (`trust: true`),
 * not in `mcp.allowed` and not auto-allowed headless (`mcp.autoAllowInHeadless`), in any approval
 * mode but yolo (measured on 0.61.0: an untrusted server's tool is left out, a trusted one's offered).
 */
export function geminiUntrustedServers(
  settings: Readonly<Record<string, unknown>>,
  approvalMode: string,
): string[] {
  if (approvalMode === "yolo") return [];
  const mcp = isRecord(settings.mcp) ? settings.mcp : {};
  const allowed = Array.isArray(mcp.allowed) ? mcp.allowed.map(String) : [];
  if (mcp.autoAllowInHeadless === true || allowed.includes("*")) return [];
  const servers = isRecord(settings.mcpServers) ? settings.mcpServers : {};
  return Object.entries(servers)
    .filter(([name, server]) => !(isRecord(server) && server.trust === true) && !allowed.includes(name))
    .map(([name]) => name);
}
