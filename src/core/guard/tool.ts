/**
 * umbel's StructuredOutput tool for the interactive TUIs: umbel's own binary as a stdio MCP server
 * (`umbel __structured-output STATE_ROOT WORKER`), given to a --structured worker at launch.
 */

export const STRUCTURED_SERVER_COMMAND = "__structured-output";

/**
 * The server's name in each CLI's config; a --mcp-config server of this name is refused. Not
 * `umbel`: that is the name docs/mcp.md gives a user's own `umbel mcp` server, which a worker may
 * load from the user's config too.
 */
export const STRUCTURED_SERVER_NAME = "umbel_structured";

/**
 * The tool's name (claude -p's): claude shows it as mcp__umbel_structured__StructuredOutput, codex
 * as StructuredOutput in namespace mcp__umbel_structured, gemini as mcp_umbel_structured_StructuredOutput.
 */
export const STRUCTURED_TOOL = "StructuredOutput";

/** A stdio MCP server as every CLI's config spells it: the program and its arguments. */
export type StructuredServer = { readonly command: string; readonly args: readonly string[] };

/** The server's argv for a worker: the umbel that spawns it, run as the hidden subcommand. */
export function structuredServer(
  self: readonly string[],
  stateRoot: string,
  worker: string,
): StructuredServer {
  const [command = "umbel", ...rest] = self;
  return { command, args: [...rest, STRUCTURED_SERVER_COMMAND, stateRoot, worker] };
}
