import { STRUCTURED_SERVER_NAME, STRUCTURED_TOOL } from "../../guard/tool.ts";
import type { LaunchInput } from "../launch-types.ts";

/** How claude names an MCP server's tool: allowed by name, so it runs without a permission prompt. */
export const STRUCTURED_TOOL_NAME = `mcp__${STRUCTURED_SERVER_NAME}__${STRUCTURED_TOOL}`;

/**
 * claude honours only the LAST `--settings` it is given (2.1.332: with two, the first one's hooks
 * never ran), and umbel's hooks travel in one. So the caller's settings are merged into umbel's:
 * every key of theirs is kept, their hooks run beside umbel's (theirs first, per event), and
 * umbel's own keys win. `disableAllHooks` is dropped: it would blind umbel to every turn.
 */
export function mergeSettings(
  own: Record<string, unknown>,
  userText: string | undefined,
): Record<string, unknown> {
  if (userText === undefined) return own;
  const user = JSON.parse(userText) as Record<string, unknown>;
  const { disableAllHooks: _dropped, ...kept } = user;
  const ownHooks = asRecord(own.hooks);
  const userHooks = asRecord(user.hooks);
  const hooks: Record<string, unknown> = { ...userHooks };
  for (const [event, matchers] of Object.entries(ownHooks)) {
    const theirs = userHooks[event];
    hooks[event] = [...(Array.isArray(theirs) ? theirs : []), ...(Array.isArray(matchers) ? matchers : [])];
  }
  return { ...kept, ...own, hooks };
}

/**
 * The launch flags beyond umbel's own, as `--flag=value` so that a value starting with `-` stays a
 * value. Variadic flags are repeated per value (commander accumulates them).
 */
export function launchExtras(input: LaunchInput): string[] {
  const argv: string[] = [];
  if (input.disallowedTools && input.disallowedTools.length > 0)
    argv.push(`--disallowedTools=${input.disallowedTools.join(",")}`);
  if (input.systemPrompt !== undefined) argv.push(`--system-prompt=${input.systemPrompt}`);
  if (input.appendSystemPrompt !== undefined) argv.push(`--append-system-prompt=${input.appendSystemPrompt}`);
  for (const dir of input.addDirs ?? []) argv.push(`--add-dir=${dir}`);
  for (const config of input.mcpConfig ?? []) argv.push(`--mcp-config=${config}`);
  // claude merges every --mcp-config it is given; umbel's tool server is one more. 2.1.332 defers
  // MCP tools behind ToolSearch (not in the request's tools; calling one directly fails with "No
  // such tool available"); `alwaysLoad` keeps this one loaded, measured against the stub model.
  if (input.structuredServer) {
    const { command, args } = input.structuredServer;
    const servers = {
      [STRUCTURED_SERVER_NAME]: { type: "stdio", command, args: [...args], alwaysLoad: true },
    };
    argv.push(`--mcp-config=${JSON.stringify({ mcpServers: servers })}`);
  }
  return argv;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}
