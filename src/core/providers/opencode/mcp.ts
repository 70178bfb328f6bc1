import { isRecord } from "../../common/json.ts";

/**
 * claude's `mcpServers` map (merged from every --mcp-config) as opencode's `mcp` config (1.18.33
 * config schema): a stdio server is `{type:"local", command:[command, ...args], environment}`, an
 * HTTP or SSE one `{type:"remote", url, headers}` (opencode tries streamable HTTP, then SSE).
 * Anything else claude's config says (`headersHelper`, `oauth`, other keys) refuses the server:
 * never dropped silently.
 */
export type OpencodeMcpPlan = {
  readonly mcp: Readonly<Record<string, unknown>>;
  readonly refused: readonly string[];
};

const STDIO_KEYS = ["type", "command", "args", "env"];
const REMOTE_KEYS = ["type", "url", "headers"];

export function planOpencodeMcp(servers: Readonly<Record<string, unknown>>): OpencodeMcpPlan {
  const mcp: Record<string, unknown> = {};
  const refused: string[] = [];
  for (const [name, raw] of Object.entries(servers)) {
    const server = isRecord(raw) ? raw : {};
    const type = server.type ?? (server.url === undefined ? "stdio" : "http");
    const remote = type === "http" || type === "sse";
    const allowed = remote ? REMOTE_KEYS : STDIO_KEYS;
    const extra = Object.keys(server).filter((key) => !allowed.includes(key));
    if (type !== "stdio" && !remote) refused.push(`MCP server "${name}": type ${String(type)} is unknown`);
    else if (extra.length > 0)
      refused.push(`MCP server "${name}": ${extra.join(", ")} cannot be given to opencode`);
    else if (remote) {
      mcp[name] = {
        type: "remote",
        url: String(server.url ?? ""),
        enabled: true,
        ...headers(server.headers),
      };
    } else {
      const args = Array.isArray(server.args) ? server.args.map(String) : [];
      mcp[name] = {
        type: "local",
        command: [String(server.command ?? ""), ...args],
        enabled: true,
        ...(isRecord(server.env) ? { environment: stringValues(server.env) } : {}),
      };
    }
  }
  return { mcp, refused };
}

/** The usage error for servers opencode cannot run, or null. */
export function refuseOpencodeMcp(servers: Readonly<Record<string, unknown>> | undefined): string | null {
  if (!servers) return null;
  const [first] = planOpencodeMcp(servers).refused;
  return first === undefined ? null : `${first} (--mcp-config with --provider opencode)`;
}

function headers(value: unknown): { headers?: Record<string, string> } {
  return isRecord(value) ? { headers: stringValues(value) } : {};
}

function stringValues(record: Readonly<Record<string, unknown>>): Record<string, string> {
  return Object.fromEntries(Object.entries(record).map(([key, value]) => [key, String(value)]));
}
