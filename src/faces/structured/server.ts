import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { CallToolResult, JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { UsageError } from "../../core/errors.ts";
import { STRUCTURED_SERVER_COMMAND, STRUCTURED_SERVER_NAME, STRUCTURED_TOOL } from "../../core/guard/tool.ts";
import type { Deps } from "../../core/ports.ts";
import { WorkerName } from "../../core/schemas.ts";
import { answerStructuredCall, markServerReady } from "../../operations/guard/structured-call.ts";

/** claude -p's description of the tool (2.1.332), plus where the schema is. */
const DESCRIPTION =
  "Use this tool to return your final response in the requested structured format. You MUST call this tool exactly once at the end of your response to provide the structured output. Its arguments must match the JSON Schema given in the prompt.";

/**
 * `umbel __structured-output STATE_ROOT WORKER`: the StructuredOutput tool over stdio, started by the
 * worker's CLI (claude --mcp-config, codex [mcp_servers], gemini mcpServers). Each call is checked
 * against the turn's schema and recorded in the worker's events dir. It exits when stdin closes.
 */
export async function runStructuredServer(
  args: readonly string[],
  io: { version: string; deps: (stateRoot: string) => Deps },
): Promise<number> {
  const [root, name] = args;
  if (!root || !name || !WorkerName.safeParse(name).success || args.length !== 2)
    throw new UsageError(`usage: umbel ${STRUCTURED_SERVER_COMMAND} STATE_ROOT WORKER`, { args });
  const deps = io.deps(root);
  const server = new McpServer(
    { name: STRUCTURED_SERVER_NAME, version: io.version },
    { capabilities: { tools: {} } },
  );
  server.registerTool(
    STRUCTURED_TOOL,
    { title: "Structured output", description: DESCRIPTION, inputSchema: z.looseObject({}) },
    async (input: Record<string, unknown>, extra): Promise<CallToolResult> => {
      const { ok, text } = await answerStructuredCall(deps, name, input, extra.signal);
      return { content: [{ type: "text", text }], ...(ok ? {} : { isError: true }) };
    },
  );
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    server.server.onclose = resolve;
  });
  await server.connect(readyOnToolList(new StdioServerTransport(), () => markServerReady(deps, name)));
  await closed;
  await server.close();
  return 0;
}

/**
 * The worker's CLI is connected once it has the tool: the mark spawn waits for is written when the
 * answer to the client's `tools/list` has gone out, not at `initialized` (claude 2.1.332 lists the
 * tools after it; a prompt sent in between, under load, met "No such tool available").
 */
function readyOnToolList(transport: StdioServerTransport, mark: () => Promise<void>): StdioServerTransport {
  const listing = new Set<string | number>();
  let marked = false;
  const send = transport.send.bind(transport);
  transport.send = async (message: JSONRPCMessage) => {
    await send(message);
    if (marked || !("id" in message) || message.id === undefined || !listing.has(message.id)) return;
    marked = true;
    await mark().catch(() => undefined);
  };
  const { start } = transport;
  transport.start = async () => {
    const received = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      if ("method" in message && message.method === "tools/list" && "id" in message) listing.add(message.id);
      received?.(message);
    };
    await start.call(transport);
  };
  return transport;
}
