import { expect } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { RequestOptions } from "@modelcontextprotocol/sdk/shared/protocol.js";
import { createMcpServer } from "../../src/faces/mcp/server.ts";
import { type Sandbox, UMBEL } from "./sandbox.ts";

export type ToolResult = {
  isError?: boolean;
  content: { type: string; text?: string }[];
  structuredContent?: Record<string, unknown>;
};

export type ErrorJson = { code: string; class: string; message: string; exitCode: number; data: unknown };

/** A real SDK client talking to umbel's MCP server in-process, over a linked in-memory pair. */
export type McpHarness = {
  readonly client: Client;
  /** Calls the server is still running (so a test can see a cancelled wait settle as aborted). */
  readonly inflight: Set<Promise<unknown>>;
  call(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<ToolResult>;
  /** Calls a tool that must succeed; returns its structured content. */
  ok<T = Record<string, unknown>>(name: string, args?: Record<string, unknown>): Promise<T>;
  close(): Promise<void>;
};

export async function connectMcp(sb: Sandbox): Promise<McpHarness> {
  const inflight = new Set<Promise<unknown>>();
  const server = createMcpServer(sb.deps(), { version: "test", inflight });
  const [serverSide, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "umbel-test", version: "0" });
  await client.connect(clientSide);
  await client.listTools(); // the client checks structuredContent against output schemas it has listed
  const call = async (name: string, args: Record<string, unknown> = {}, options?: RequestOptions) =>
    (await client.callTool({ name, arguments: args }, undefined, options)) as ToolResult;
  return {
    client,
    inflight,
    call,
    async ok<T>(name: string, args: Record<string, unknown> = {}) {
      const r = await call(name, args);
      if (r.isError) throw new Error(`${name} failed: ${r.content.map((c) => c.text).join("\n")}`);
      expect(r.content[0]?.type).toBe("text");
      return r.structuredContent as T;
    },
    async close() {
      await client.close();
      await server.close();
    },
  };
}

/** A real SDK client of the compiled binary's `umbel mcp` over stdio, in the sandbox's environment. */
export async function connectUmbelMcp(sb: Pick<Sandbox, "env" | "work">, name: string): Promise<Client> {
  const client = new Client({ name, version: "0" });
  await client.connect(
    new StdioClientTransport({ command: UMBEL, args: ["mcp"], env: sb.env, cwd: sb.work, stderr: "pipe" }),
  );
  return client;
}

/** The error JSON of an isError result (its second text block). */
export function errorOf(result: ToolResult): ErrorJson {
  expect(result.isError).toBe(true);
  return (JSON.parse(result.content[1]?.text ?? "{}") as { error: ErrorJson }).error;
}

export function textOf(result: ToolResult): string {
  return result.content.map((c) => c.text ?? "").join("\n");
}
