import type { Readable, Writable } from "node:stream";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { quoteArg } from "../../core/common/quote.ts";
import { UsageError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { SERVER_INSTRUCTIONS, toolDescription } from "./help.ts";
import { GuardedStdioTransport } from "./line-transport.ts";
import { type Extra, progressReporter } from "./progress.ts";
import { TOOLS } from "./tools.ts";

/**
 * `umbel mcp`: every verb as a tool over stdio. Each call runs with the server's deps (so the
 * environment the server was started with — UMBEL_HOME and the rest — holds for every tool) and a
 * signal that fires on the client's cancel or on shutdown; cancelling ends a wait, never a worker.
 */

const USAGE = `Usage: umbel mcp

Serves umbel's verbs as MCP tools over stdio (one tool per verb: umbel_spawn, umbel_send,
umbel_wait, umbel_read, …). Add it to an MCP host as {"command": "umbel", "args": ["mcp"]};
see docs/mcp.md. It exits when stdin closes or on SIGTERM.
`;

/** On shutdown, in-flight calls are aborted and given this long to finish (a spawn unwinds). */
const DRAIN_MS = 10_000;

export type McpServerOptions = {
  readonly version: string;
  /** Calls still running, so shutdown can let them finish (waits end as aborted). */
  readonly inflight?: Set<Promise<unknown>>;
};

export function createMcpServer(deps: Deps, options: McpServerOptions): McpServer {
  const server = new McpServer(
    { name: "umbel", title: "umbel", version: options.version },
    { instructions: SERVER_INSTRUCTIONS, capabilities: { tools: {} } },
  );
  for (const tool of TOOLS) {
    const handler = (input: unknown, extra: Extra): Promise<CallToolResult> => {
      const signal = deps.signal ? AbortSignal.any([deps.signal, extra.signal]) : extra.signal;
      const call = tool.call(input, { deps: { ...deps, signal }, extra, report: progressReporter(extra) });
      options.inflight?.add(call);
      return call.finally(() => options.inflight?.delete(call));
    };
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: toolDescription(tool.name),
        inputSchema: tool.input,
        outputSchema: tool.output,
        annotations: { title: tool.title, ...tool.annotations },
      },
      handler as Parameters<McpServer["registerTool"]>[2],
    );
  }
  return server;
}

export type McpIo = {
  readonly deps: Deps;
  readonly version: string;
  /** For `umbel mcp --help` only: once serving, stdout carries nothing but protocol. */
  readonly out: (text: string) => void;
  readonly stdin?: Readable;
  readonly stdout?: Writable;
};

/** Serves until stdin closes, the transport closes, or deps.signal aborts (SIGTERM, SIGINT). */
export async function runMcp(args: readonly string[], io: McpIo): Promise<number> {
  if (args.includes("--help") || args.includes("-h")) {
    io.out(USAGE);
    return 0;
  }
  if (args.length > 0)
    throw new UsageError(`umbel mcp takes no arguments (got ${args.map((a) => quoteArg(a)).join(" ")})`, {
      args,
    });
  const stdin = io.stdin ?? process.stdin;
  const stop = new AbortController();
  const signal = io.deps.signal ? AbortSignal.any([io.deps.signal, stop.signal]) : stop.signal;
  const inflight = new Set<Promise<unknown>>();
  const server = createMcpServer({ ...io.deps, signal }, { version: io.version, inflight });
  const ended = new Promise<void>((resolve) => {
    stdin.once("end", resolve);
    stdin.once("close", resolve);
    signal.addEventListener("abort", () => resolve(), { once: true });
    server.server.onclose = resolve;
  });
  const transport = new GuardedStdioTransport(stdin, io.stdout ?? process.stdout);
  await server.connect(transport);
  await ended;
  stop.abort();
  await settle(inflight, DRAIN_MS);
  // The SDK writes a settled call's response a few promise turns later; let it, then let it flush.
  await new Promise((resolve) => setTimeout(resolve, 0));
  await transport.flushed();
  await server.close();
  return 0;
}

async function settle(calls: Set<Promise<unknown>>, ms: number): Promise<void> {
  if (calls.size === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
  });
  await Promise.race([Promise.allSettled([...calls]), expired]);
  clearTimeout(timer);
}
