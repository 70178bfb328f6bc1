import { isRecord as isObject } from "../common/json.ts";
import { UsageError } from "../errors.ts";

/**
 * claude's `--mcp-config` values (each JSON text or a file's text: `{"mcpServers":{name: server}}`)
 * merged into one `mcpServers` map, a later config's server replacing an earlier one of the same
 * name, as claude does. Providers that take MCP servers in their own config format translate it.
 */
export function mergeMcpConfigs(
  configs: readonly { source: string; text: string }[],
): Record<string, unknown> {
  const servers: Record<string, unknown> = {};
  for (const { source, text } of configs) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new UsageError(`--mcp-config ${source}: not valid JSON`, { source });
    }
    const map = isObject(parsed) ? parsed.mcpServers : undefined;
    if (!isObject(map)) throw new UsageError(`--mcp-config ${source}: no "mcpServers" object`, { source });
    for (const [name, server] of Object.entries(map)) {
      if (!isObject(server))
        throw new UsageError(`--mcp-config ${source}: server "${name}" is not an object`, { source, name });
      servers[name] = server;
    }
  }
  return servers;
}
