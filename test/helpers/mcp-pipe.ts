import { PassThrough } from "node:stream";
import { runMcp } from "../../src/faces/mcp/server.ts";
import type { Sandbox } from "./sandbox.ts";

export type Reply = {
  jsonrpc: string;
  id?: string | number | null;
  result?: unknown;
  error?: { code: number; message: string };
};

/** `umbel mcp`'s runMcp over a pair of pipes: raw lines in, every line it writes parsed out. */
export type McpPipe = {
  readonly replies: Reply[];
  /** Lines on stdout that were not JSON (there must be none). */
  readonly garbage: string[];
  write(text: string): void;
  /** Polls (no sleeps in tests: 10 ms turns) until `done` holds or `ms` pass; returns whether it held. */
  until(done: () => boolean, ms?: number): Promise<boolean>;
  /** Sends a request and waits for its reply. */
  request(id: string, method: string, params?: object): Promise<Reply | undefined>;
  /** Ends stdin and resolves with runMcp's exit code. */
  close(): Promise<number>;
};

export function startMcpPipe(sb: Sandbox): McpPipe {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const replies: Reply[] = [];
  const garbage: string[] = [];
  let rest = "";
  stdout.on("data", (chunk: Buffer) => {
    const lines = (rest + chunk.toString("utf8")).split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) {
      try {
        replies.push(JSON.parse(line) as Reply);
      } catch {
        garbage.push(line);
      }
    }
  });
  const exited = runMcp([], { deps: sb.deps(), version: "test", out: () => undefined, stdin, stdout });
  const until = async (done: () => boolean, ms = 20_000) => {
    const end = Date.now() + ms;
    while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 10));
    return done();
  };
  return {
    replies,
    garbage,
    write: (text) => stdin.write(text),
    until,
    async request(id, method, params) {
      stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id, method, ...(params ? { params } : {}) })}\n`);
      await until(() => replies.some((r) => r.id === id));
      return replies.find((r) => r.id === id);
    },
    async close() {
      stdin.end();
      return await exited;
    },
  };
}
