import { isRecord, asRecord as record } from "../../common/json.ts";
import { UsageError } from "../../errors.ts";
import { STRUCTURED_SERVER_NAME } from "../../guard/tool.ts";
import type { HomeEntry, HomeLaunch } from "../home-types.ts";
import {
  geminiApprovalMode,
  geminiNonInteractiveExcludes,
  geminiUntrustedServers,
} from "./non-interactive.ts";

/**
 * claude's launch flags in gemini-cli 0.61.0's terms (read from its bundle, each measured against
 * the stub model: test/real/gemini.test.ts). Pure: the home plan and the launch plan call these.
 *
 * - --system-prompt: GEMINI_SYSTEM_MD=<file> replaces gemini's core prompt with the file's text.
 *   gemini then substitutes `${AgentSkills}`, `${SubAgents}`, `${AvailableTools}` and
 *   `${<tool>_ToolName}` in it, and still appends its context files (below) after it.
 * - --append-system-prompt: gemini's global context file (`<home>/.gemini/GEMINI.md`). Its text is
 *   the last part of the system instruction, wrapped in gemini's own "# Contextual Instructions" /
 *   `--- Context from: <path> ---` frame (only the model's saved project memory and the
 *   `[Active Topic: …]` line may follow it), not a user message.
 * - --mcp-config: settings.json `mcpServers` (claude's fields are gemini's: command/args/env, or
 *   type "http"/"sse" + url/headers).
 * - --disallowed-tools: settings.json `tools.exclude`, names as gemini knows them; so are the tools
 *   gemini -p would not offer, for a non-interactive worker (non-interactive.ts).
 * - --add-dir: `--include-directories <dir>` (see planGeminiLaunch).
 */

/** Where the --system-prompt text goes (GEMINI_SYSTEM_MD points at it). */
export function geminiSystemPromptPath(home: string): string {
  return `${home}/system-prompt.md`;
}

/** The fields of gemini's MCPServerConfig a server may carry (its settings schema allows no others). */
const MCP_FIELDS = new Set([
  "type",
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "httpUrl",
  "headers",
  "tcp",
  "timeout",
  "trust",
  "description",
  "includeTools",
  "excludeTools",
  "oauth",
  "authProviderType",
  "targetAudience",
  "targetServiceAccount",
]);

/**
 * claude's `mcpServers` map as gemini's. gemini 0.61.0 reads the same shapes: `{command, args, env}`
 * (stdio) and `{type: "http" | "sse", url, headers}` (its `httpUrl` is the deprecated spelling);
 * no `trust` is added, so the server's tools ask like any other tool in the approval mode given. A
 * field or a transport gemini has no place for is a usage error, never dropped silently.
 */
export function toGeminiMcpServers(
  servers: Readonly<Record<string, unknown>>,
): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const [name, value] of Object.entries(servers)) {
    const problem = mcpServerProblem(name, value as Record<string, unknown>);
    if (problem) throw new UsageError(problem, { provider: "gemini", name });
    out[name] = { ...(value as Record<string, unknown>) };
  }
  return out;
}

/** The usage error for the first server gemini cannot run, or null (checked before spawn makes anything). */
export function geminiMcpProblem(servers: Readonly<Record<string, unknown>> | undefined): string | null {
  for (const [name, server] of Object.entries(servers ?? {})) {
    const problem = mcpServerProblem(name, server as Record<string, unknown>);
    if (problem) return problem;
  }
  return null;
}

function mcpServerProblem(name: string, server: Record<string, unknown>): string | null {
  const type = server.type;
  const refuse = (why: string) => `--mcp-config: server "${name}" ${why}`;
  if (type !== undefined && type !== "stdio" && type !== "http" && type !== "sse") {
    return refuse(`has type ${JSON.stringify(type)}; gemini takes stdio, http and sse`);
  }
  const missing =
    type === "http" || type === "sse"
      ? typeof server.url !== "string" && "a url"
      : type === "stdio"
        ? typeof server.command !== "string" && "a command"
        : !["command", "url", "httpUrl"].some((key) => typeof server[key] === "string") &&
          "a command or a url";
  if (missing) return refuse(`needs ${missing}`);
  const unknown = Object.keys(server).filter((key) => !MCP_FIELDS.has(key));
  if (unknown.length > 0) return refuse(`has ${unknown.join(", ")}, which gemini does not take`);
  return null;
}

/**
 * The settings with the launch's MCP servers and excluded tools on top of the user's own: servers
 * of the same name are replaced (as claude's later --mcp-config wins), and the user's `mcp.allowed`
 * / `mcp.excluded` lists are made to let them load (asking for a server is choosing it).
 */
export function applyLaunchSettings(
  settings: Record<string, unknown>,
  launch: HomeLaunch,
): Record<string, unknown> {
  const next = { ...settings };
  const wanted = { ...launch.mcpServers, ...structuredServerEntry(launch) };
  if (Object.keys(wanted).length > 0) {
    const servers = toGeminiMcpServers(wanted);
    const names = Object.keys(servers);
    next.mcpServers = { ...record(settings.mcpServers), ...servers };
    const mcp = { ...record(settings.mcp) };
    if (Array.isArray(mcp.allowed)) mcp.allowed = unique([...mcp.allowed, ...names]);
    if (Array.isArray(mcp.excluded))
      mcp.excluded = mcp.excluded.filter((name) => !names.includes(String(name)));
    if (isRecord(settings.mcp)) next.mcp = mcp;
  }
  const untrusted = launch.nonInteractive ? geminiUntrustedServers(next, geminiApprovalMode(launch)) : [];
  if (untrusted.length > 0) {
    const mcp = record(next.mcp);
    const own = Array.isArray(mcp.excluded) ? mcp.excluded : [];
    next.mcp = { ...mcp, excluded: unique([...own, ...untrusted]) };
  }
  const excluded = [
    ...(launch.disallowedTools ?? []),
    ...(launch.nonInteractive
      ? geminiNonInteractiveExcludes(geminiApprovalMode(launch), launch.allowedTools)
      : []),
  ];
  if (excluded.length > 0) {
    const tools = record(settings.tools);
    const own = Array.isArray(tools.exclude) ? tools.exclude : [];
    next.tools = { ...tools, exclude: unique([...own, ...excluded]) };
  }
  return next;
}

/**
 * umbel's StructuredOutput server: `trust: true` is gemini's way to run a server's tools without
 * asking (0.61.0's MCPServerConfig), whatever the approval mode.
 */
function structuredServerEntry(launch: HomeLaunch): Record<string, unknown> {
  const server = launch.structuredServer;
  if (!server) return {};
  return { [STRUCTURED_SERVER_NAME]: { command: server.command, args: [...server.args], trust: true } };
}

/**
 * The global context file that carries --append-system-prompt, and the user's own `GEMINI.md`:
 * gemini reads `<home>/.gemini/<name>` for every name of `context.fileName` (default GEMINI.md), in
 * that order, so the text goes into the last one, after the user's file when they share the name.
 * Without an append, the user's file is linked (gemini reads it on every start, and its memory tool
 * saves to it as it would for the user); with one, the worker gets a copy.
 */
export function planGeminiMemory(input: {
  readonly dir: string;
  readonly userDir: string | null;
  readonly userMemory: string | null;
  readonly settings: Record<string, unknown>;
  readonly append: string | undefined;
}): HomeEntry[] {
  const names = contextFileNames(input.settings);
  const carried = input.userDir !== null && input.userMemory !== null && names.includes("GEMINI.md");
  const link: HomeEntry[] = carried
    ? [{ kind: "link", path: `${input.dir}/GEMINI.md`, target: `${input.userDir}/GEMINI.md` }]
    : [];
  if (input.append === undefined) return link;
  const name = names.at(-1) ?? "GEMINI.md";
  const own = carried && name === "GEMINI.md" ? input.userMemory : null;
  const text = escapeMemoryImports(input.append);
  const content = own === null ? `${text}\n` : `${own.trimEnd()}\n\n${text}\n`;
  const file: HomeEntry = { kind: "file", path: `${input.dir}/${name}`, content, mode: 0o600 };
  return name === "GEMINI.md" ? [file] : [...link, file];
}

/**
 * gemini reads ` @path` in a context file as an import (the file's text replaces it; a missing file
 * becomes `<!-- Import failed: … -->`). A U+2060 WORD JOINER before such an `@` (invisible, kept by
 * gemini) leaves the token as text; `a@b.c` and `@` before other characters are not imports.
 */
export function escapeMemoryImports(text: string): string {
  return text.replace(/(^|[ \t\r\n])@(?=[./A-Za-z])/g, "$1\u2060@");
}

/** `context.fileName` as a list of plain file names (gemini's default: GEMINI.md). */
function contextFileNames(settings: Record<string, unknown>): string[] {
  const value = record(settings.context).fileName;
  const list = typeof value === "string" ? [value] : Array.isArray(value) ? value : [];
  const names = list.filter(
    (name): name is string => typeof name === "string" && /^[^/\\]+$/.test(name.trim()),
  );
  return names.length > 0 ? names.map((name) => name.trim()) : ["GEMINI.md"];
}

function unique<T>(values: readonly T[]): T[] {
  return [...new Set(values)];
}
