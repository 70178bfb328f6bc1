import type { McpServer } from "@agentclientprotocol/sdk";

/**
 * A client's MCP servers (ACP's `mcpServers`) in claude's `--mcp-config` shape, which spawn hands to
 * every CLI in its own format (codex, gemini, opencode translate it). A server the provider cannot
 * run as given (`check`: the provider's launch check of that one server) is left out and listed with
 * the reason, never dropped silently.
 */
export type McpPlan = {
  /** claude's `mcpServers` map of the servers the provider takes (empty: none). */
  readonly servers: Readonly<Record<string, unknown>>;
  readonly passed: readonly string[];
  readonly unsupported: readonly { readonly name: string; readonly why: string }[];
};

export function planMcpServers(
  given: readonly McpServer[],
  check: (servers: Readonly<Record<string, unknown>>) => string | null,
): McpPlan {
  const servers: Record<string, unknown> = {};
  const passed: string[] = [];
  const unsupported: { name: string; why: string }[] = [];
  for (const server of given) {
    const config = claudeServer(server);
    const why = server.name === "" ? "a server needs a name" : check({ [server.name]: config });
    if (why !== null) {
      unsupported.push({ name: server.name, why });
      continue;
    }
    servers[server.name] = config;
    passed.push(server.name);
  }
  return { servers, passed, unsupported };
}

/** One ACP server as claude's config: stdio {command, args, env}, http/sse {type, url, headers}. */
function claudeServer(server: McpServer): Record<string, unknown> {
  if ("type" in server && (server.type === "http" || server.type === "sse")) {
    const headers = Object.fromEntries(server.headers.map((h) => [h.name, h.value]));
    return { type: server.type, url: server.url, ...(server.headers.length > 0 ? { headers } : {}) };
  }
  const stdio = server as Extract<McpServer, { command: string }>;
  const env = Object.fromEntries((stdio.env ?? []).map((v) => [v.name, v.value]));
  return {
    command: stdio.command,
    args: [...(stdio.args ?? [])],
    ...(Object.keys(env).length > 0 ? { env } : {}),
  };
}

/** Whether the provider takes HTTP and SSE servers at all (initialize's mcpCapabilities). */
export function mcpCapabilities(check: (servers: Readonly<Record<string, unknown>>) => string | null): {
  http: boolean;
  sse: boolean;
} {
  const probe = (type: "http" | "sse") => check({ probe: { type, url: "http://127.0.0.1:9/mcp" } }) === null;
  return { http: probe("http"), sse: probe("sse") };
}
