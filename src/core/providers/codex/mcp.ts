import { STRUCTURED_SERVER_NAME, type StructuredServer } from "../../guard/tool.ts";
import { tomlString } from "./toml.ts";

/**
 * claude's `mcpServers` map (merged from every --mcp-config) as codex `[mcp_servers.<name>]` tables
 * for the worker's profile. Measured on codex-cli 0.171.0 (`codex exec` and the TUI against the stub
 * model, `umbel mcp` as the server):
 * - a stdio server gets only HOME, LANG, PATH, TERM, TMPDIR (+ its `env`) from codex's environment;
 *   claude hands its MCP servers its whole environment, so every name of the worker's environment
 *   goes into `env_vars` (forwarded from codex's environment when set);
 * - a server whose name is outside `[A-Za-z0-9_-]` (`odd name`, `ü`) is skipped without a word, and
 *   `odd.name` loads as `mcp__odd_name`: other characters are rewritten as `_` (as codex does for
 *   `.`), and two names that become one are refused;
 * - streamable HTTP is `url` + `http_headers`; codex has no SSE transport.
 * Anything else claude's config says that codex cannot express (type `sse`, `headersHelper`, `oauth`,
 * any other key) refuses the server: never dropped silently.
 */

export type CodexMcpPlan = {
  /** The `[mcp_servers.…]` tables, in the config's order. */
  readonly toml: readonly string[];
  /** One message per server codex cannot run as configured (usage errors naming codex). */
  readonly refused: readonly string[];
};

const NAME = /^[A-Za-z0-9_-]+$/;
const STDIO_KEYS = ["type", "command", "args", "env"];
const HTTP_KEYS = ["type", "url", "headers"];

/** The env names umbel itself sets in every worker (UMBEL_HOME, UMBEL_SESSION). */
const UMBEL_WORKER_ENV = ["UMBEL_HOME", "UMBEL_SESSION"] as const;

export function planCodexMcpServers(
  servers: Readonly<Record<string, unknown>>,
  envNames: readonly string[],
): CodexMcpPlan {
  const toml: string[] = [];
  const refused: string[] = [];
  const taken = new Map<string, string>();
  for (const [name, server] of Object.entries(servers)) {
    const key = codexMcpName(name);
    const clash = taken.get(key);
    if (clash !== undefined) {
      refused.push(
        `MCP servers "${clash}" and "${name}" are both "${key}" for codex (names may use only A-Z a-z 0-9 _ -)`,
      );
      continue;
    }
    taken.set(key, name);
    const rendered = renderServer(key, server as Readonly<Record<string, unknown>>, envNames);
    if (typeof rendered === "string") toml.push(rendered);
    else refused.push(`MCP server "${name}": ${rendered.refused}`);
  }
  return { toml, refused };
}

/**
 * umbel's StructuredOutput server as a codex table. `default_tools_approval_mode` is one of auto,
 * prompt, writes, approve (0.171.0's own error lists them); "approve" runs the tool without asking.
 */
export function renderStructuredServer(server: StructuredServer): string {
  return [
    `[mcp_servers.${tomlString(STRUCTURED_SERVER_NAME)}]`,
    `command = ${tomlString(server.command)}`,
    `args = [${server.args.map((a) => tomlString(a)).join(", ")}]`,
    'default_tools_approval_mode = "approve"',
  ].join("\n");
}

/** The usage error for servers codex cannot run, or null (the first one is enough to stop). */
export function refuseCodexMcpServers(servers: Readonly<Record<string, unknown>> | undefined): string | null {
  if (!servers) return null;
  const [first] = planCodexMcpServers(servers, []).refused;
  return first === undefined ? null : `${first} (--mcp-config with --provider codex)`;
}

/** The name codex loads: characters outside `[A-Za-z0-9_-]` become `_` (codex skips such names). */
export function codexMcpName(name: string): string {
  return NAME.test(name) ? name : name.replace(/[^A-Za-z0-9_-]/g, "_") || "_";
}

function renderServer(
  key: string,
  server: Readonly<Record<string, unknown>>,
  envNames: readonly string[],
): string | { refused: string } {
  const type = server.type ?? "stdio";
  if (type === "sse") return { refused: "codex has no SSE transport (stdio and streamable HTTP only)" };
  if (type !== "stdio" && type !== "http") return { refused: `codex has no "${String(type)}" transport` };
  const allowed = type === "stdio" ? STDIO_KEYS : HTTP_KEYS;
  const extra = Object.keys(server).filter((k) => !allowed.includes(k));
  if (extra.length > 0) return { refused: `codex cannot express ${extra.map((k) => `"${k}"`).join(", ")}` };
  const lines = [`[mcp_servers.${tomlString(key)}]`];
  if (type === "http") {
    if (typeof server.url !== "string") return { refused: '"url" must be a string' };
    lines.push(`url = ${tomlString(server.url)}`);
    const headers = stringMap(server.headers, "headers");
    if (typeof headers === "object" && "refused" in headers) return headers;
    if (headers) lines.push(`http_headers = ${headers}`);
    return lines.join("\n");
  }
  if (typeof server.command !== "string" || server.command === "")
    return { refused: '"command" must be a non-empty string' };
  lines.push(`command = ${tomlString(server.command)}`);
  if (server.args !== undefined) {
    if (!Array.isArray(server.args) || !server.args.every((a) => typeof a === "string"))
      return { refused: '"args" must be an array of strings' };
    lines.push(`args = [${server.args.map((a) => tomlString(a)).join(", ")}]`);
  }
  const env = stringMap(server.env, "env");
  if (typeof env === "object" && "refused" in env) return env;
  if (env) lines.push(`env = ${env}`);
  const own = new Set(Object.keys((server.env as Record<string, string> | undefined) ?? {}));
  const forwarded = [...new Set([...envNames, ...UMBEL_WORKER_ENV])].filter((n) => !own.has(n)).sort();
  lines.push(`env_vars = [${forwarded.map((n) => tomlString(n)).join(", ")}]`);
  return lines.join("\n");
}

/** A JSON object of strings as a TOML inline table, undefined when absent. */
function stringMap(value: unknown, field: string): string | undefined | { refused: string } {
  if (value === undefined) return undefined;
  const ok =
    value !== null &&
    typeof value === "object" &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string");
  if (!ok) return { refused: `"${field}" must be an object of strings` };
  const entries = Object.entries(value as Record<string, string>);
  return `{ ${entries.map(([k, v]) => `${tomlString(k)} = ${tomlString(v)}`).join(", ")} }`;
}
