import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { Progress } from "@modelcontextprotocol/sdk/types.js";
import { errorOf, type ToolResult, textOf } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Real workers take seconds; bun's default is 5 s, and a preload's setDefaultTimeout reaches only
// the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** The built `dist/umbel mcp` over stdio: one test per tool family, and how the server ends. */

let sb: Sandbox;
let client: Client;
const protocolErrors: Error[] = [];

beforeAll(async () => {
  sb = await createSandbox({ env: { E2E_SECRET: "from-the-server-env" } });
  client = new Client({ name: "umbel-e2e", version: "0" });
  client.onerror = (error) => protocolErrors.push(error);
  await client.connect(
    new StdioClientTransport({ command: UMBEL, args: ["mcp"], env: sb.env, cwd: sb.work, stderr: "pipe" }),
  );
  await client.listTools();
});
afterAll(async () => {
  await client.close();
  await sb.dispose();
});

async function call(name: string, args: Record<string, unknown> = {}, onprogress?: (p: Progress) => void) {
  return (await client.callTool(
    { name, arguments: args },
    undefined,
    onprogress ? { onprogress } : {},
  )) as ToolResult;
}

async function ok<T = Record<string, unknown>>(name: string, args: Record<string, unknown> = {}): Promise<T> {
  const r = await call(name, args);
  if (r.isError) throw new Error(`${name}: ${textOf(r)}`);
  return r.structuredContent as T;
}

describe("umbel mcp over stdio", () => {
  test("handshake: every tool (the verbs, doctor, answer, pool, accounts and hosts among them, help and run), instructions, version", async () => {
    expect(client.getServerVersion()).toMatchObject({ name: "umbel" });
    expect(client.getInstructions()).toContain("umbel_wait");
    expect((await client.listTools()).tools).toHaveLength(18);
  });

  test("umbel_pool: ls with no spares is an empty list", async () => {
    expect(await ok("umbel_pool", { action: "ls" })).toMatchObject({ action: "ls", spares: [], removed: [] });
  });

  test("lifecycle tools: spawn → send → wait → read → kill, with {fromEnv} from the server's env", async () => {
    const spawned = await ok("umbel_spawn", { name: "w1", env: { SEEN: { fromEnv: "E2E_SECRET" } } });
    expect(spawned).toMatchObject({ name: "w1", cwd: sb.work, state: "ready" });
    expect(existsSync(join(sb.root, "sessions", "w1", "meta.json"))).toBe(true);
    const { baseline } = await ok<{ baseline: number }>("umbel_send", {
      name: "w1",
      prompt: "fake:env SEEN",
    });
    const progress: Progress[] = [];
    const waited = await call("umbel_wait", { name: "w1", after: baseline }, (p) => progress.push(p));
    expect(waited.structuredContent).toMatchObject({ reason: "stop", exitCode: 0 });
    expect(textOf(waited)).toContain("umbel_read");
    const read = await ok<{ text: string }>("umbel_read", { name: "w1", after: baseline });
    expect(read.text).toBe("ENV SEEN=from-the-server-env");
  });

  test("looking tools: status, ls, capture, logs, keys, help", async () => {
    expect(await ok("umbel_status", { name: "w1" })).toMatchObject({ state: "idle", provider: "claude" });
    expect((await ok<{ workers: { name: string }[] }>("umbel_ls")).workers.map((w) => w.name)).toEqual([
      "w1",
    ]);
    expect(textOf(await call("umbel_capture", { name: "w1" }))).toContain("Claude Code");
    const logs = await ok<{ events: { event: string }[] }>("umbel_logs", { name: "w1" });
    expect(logs.events[0]?.event).toBe("SessionStart");
    expect(await ok("umbel_keys", { name: "w1", keys: ["Escape"] })).toEqual({
      name: "w1",
      sent: ["Escape"],
    });
    expect((await ok<{ text: string }>("umbel_help", { topic: "outcomes" })).text).toContain(
      "provider-error",
    );
  });

  test("errors keep their code and class (the binary keeps class names)", async () => {
    expect(errorOf(await call("umbel_send", { name: "ghost", prompt: "hi" }))).toMatchObject({
      code: "not-found",
      class: "WorkerNotFoundError",
      exitCode: 3,
    });
    expect(textOf(await call("umbel_spawn", { name: "NO" }))).toContain("a worker name is 1-63");
  });

  test("kill and prune; nothing but protocol on stdout", async () => {
    expect(await ok("umbel_kill", { name: "w1" })).toMatchObject({ state: "killed" });
    expect(await ok("umbel_prune")).toEqual({ removed: ["w1"], kept: [] });
    expect(protocolErrors).toEqual([]);
  });
});

describe("how the server ends", () => {
  const init = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
  };

  function start() {
    return Bun.spawn([UMBEL, "mcp"], {
      cwd: sb.work,
      env: sb.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
    });
  }

  test("exits 0 when stdin closes, an in-flight wait aborted and the worker left running", async () => {
    await ok("umbel_spawn", { name: "w2" });
    const { baseline } = await ok<{ baseline: number }>("umbel_send", { name: "w2", prompt: "fake:hang" });
    const child = start();
    const wait = {
      name: "umbel_wait",
      arguments: { name: "w2", after: baseline },
      _meta: { progressToken: 7 },
    };
    const lines = [
      init,
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: wait },
    ];
    child.stdin.write(lines.map((l) => `${JSON.stringify(l)}\n`).join(""));
    await child.stdin.flush();
    const messages = new MessageReader(child.stdout);
    await messages.until((m) => m.method === "notifications/progress"); // the wait is running
    const started = Date.now();
    child.stdin.end();
    expect(await child.exited).toBe(0);
    expect(Date.now() - started).toBeLessThan(5000);
    const all = await messages.rest();
    expect(all.find((m) => m.id === 1)?.result).toMatchObject({ serverInfo: { name: "umbel" } });
    expect(all.find((m) => m.id === 2)?.result).toMatchObject({ structuredContent: { reason: "aborted" } });
    expect(await ok("umbel_status", { name: "w2" })).toMatchObject({ state: "busy" });
    await ok("umbel_kill", { name: "w2", purge: true });
  });

  test("malformed lines: each id gets one error, non-JSON gets id null, then a valid request works", async () => {
    const child = start();
    const raw = [
      JSON.stringify(init),
      '{"jsonrpc":"2.0","id":2,"method":"ping","params":"x"}',
      '{"jsonrpc":"2.0","id":1.5,"method":"ping"}',
      '{"jsonrpc":"2.0","id":3,"method":123}',
      '{"jsonrpc":"2.0","id":4,"method":"ping"}{"jsonrpc":"2.0","id":5,"method":"ping"}',
      '{"jsonrpc":"2.0","id":6,"method":"tools/call"}',
      '{"jsonrpc":"2.0","method":"notifications/cancelled","params":"x"}',
      "not json",
      '{"jsonrpc":"2.0","id":7,"method":"ping"}',
    ];
    child.stdin.write(raw.map((l) => `${l}\n`).join(""));
    await child.stdin.flush();
    const messages = new MessageReader(child.stdout);
    const all = (await messages.until((m) => m.id === 7)) as {
      id?: unknown;
      error?: { code: number; message: string };
    }[];
    const error = (id: unknown) => all.filter((m) => m.id === id).map((m) => m.error);
    expect(error(2)).toEqual([{ code: -32600, message: 'Invalid request: "params" must be an object' }]);
    expect(error(1.5)).toEqual([
      { code: -32600, message: 'Invalid request: "id" must be a string or an integer' },
    ]);
    expect(error(3)).toEqual([{ code: -32600, message: 'Invalid request: "method" must be a string' }]);
    const twoOnALine = {
      code: -32700,
      message: "Parse error: 2 JSON values on one line; send one message per line",
    };
    expect([...error(4), ...error(5)]).toEqual([twoOnALine, twoOnALine]);
    expect(error(6)).toEqual([
      { code: -32602, message: "Invalid params for tools/call: params: expected object, received undefined" },
    ]);
    expect(error(null)).toEqual([{ code: -32700, message: expect.stringMatching(/^Parse error: not JSON/) }]);
    expect(all.find((m) => m.id === 7)).toEqual({ jsonrpc: "2.0", id: 7, result: {} } as never);
    child.stdin.end();
    expect(await child.exited).toBe(0);
    expect((await messages.rest()).length).toBe(all.length);
  });

  test("exits 0 on SIGTERM", async () => {
    const child = start();
    child.stdin.write(`${JSON.stringify(init)}\n`);
    await child.stdin.flush();
    const messages = new MessageReader(child.stdout);
    const [first] = await messages.until((m) => m.id === 1);
    expect(first).toMatchObject({ id: 1, result: { serverInfo: { name: "umbel" } } });
    child.kill("SIGTERM");
    expect(await child.exited).toBe(0);
  });

  test("`umbel mcp --help` prints usage; stray arguments are a usage error", async () => {
    const help = await sb.umbel(["mcp", "--help"]);
    expect(help.stdout).toContain("Usage: umbel mcp");
    expect(help.code).toBe(0);
    const bad = await sb.umbel(["mcp", "--port", "3"]);
    expect(bad.stderr).toContain("takes no arguments");
    expect(bad.code).toBe(2);
    expect((await sb.umbel(["--help"])).stdout).toContain("mcp ");
  });
});

type Message = { id?: number; method?: string; result?: Record<string, unknown> };

/** JSON-RPC messages from a server's stdout; every line must parse (stdout carries only protocol). */
class MessageReader {
  private readonly reader: { read(): Promise<{ value?: Uint8Array | undefined; done: boolean }> };
  private readonly decoder = new TextDecoder();
  private buffer = "";
  private readonly seen: Message[] = [];

  constructor(stream: ReadableStream<Uint8Array>) {
    this.reader = stream.getReader();
  }

  /** Reads until a message matches; returns everything read so far. */
  async until(match: (m: Message) => boolean): Promise<Message[]> {
    while (!this.seen.some(match)) {
      if (!(await this.pull())) throw new Error("stdout ended first");
    }
    return this.seen;
  }

  /** Reads to the end of the stream. */
  async rest(): Promise<Message[]> {
    while (await this.pull()) {}
    return this.seen;
  }

  private async pull(): Promise<boolean> {
    const { value, done } = await this.reader.read();
    if (done) return false;
    this.buffer += this.decoder.decode(value, { stream: true });
    const lines = this.buffer.split("\n");
    this.buffer = lines.pop() ?? "";
    for (const line of lines) if (line.trim()) this.seen.push(JSON.parse(line) as Message);
    return true;
  }
}
