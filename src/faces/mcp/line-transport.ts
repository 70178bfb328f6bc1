import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { type GuardReply, PARSE_ERROR, screenLine } from "./jsonrpc-gate.ts";

/** The SDK stdio transport's bound (STDIO_DEFAULT_MAX_BUFFER_SIZE), per line here. */
const MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * The stdio transport `umbel mcp` serves on: newline-delimited JSON-RPC like the SDK's
 * StdioServerTransport, with every line screened by jsonrpc-gate.ts first, so a malformed line
 * is answered (or dropped) here and the SDK only sees well-formed messages. A line over the bound
 * is skipped and answered, where the SDK closed the whole connection. It also knows when every
 * write has been flushed (runMcp waits for that before it exits).
 */
export class GuardedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private bytes = 0;
  private skipping = false;
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly stdin: Readable,
    private readonly stdout: Writable,
  ) {}

  async start(): Promise<void> {
    this.stdin.on("data", this.onData);
    this.stdin.on("error", this.onStreamError);
  }

  send(message: JSONRPCMessage | GuardReply): Promise<void> {
    // Settles when stdout has taken the line (its callback), under backpressure too.
    const write = new Promise<void>((resolve, reject) => {
      this.stdout.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
    this.writing.add(write);
    return write.finally(() => this.writing.delete(write));
  }

  async close(): Promise<void> {
    this.stdin.off("data", this.onData);
    this.stdin.off("error", this.onStreamError);
    if (this.stdin.listenerCount("data") === 0) this.stdin.pause();
    this.chunks = [];
    this.onclose?.();
  }

  /** Resolves once every message sent so far has been handed to stdout. */
  async flushed(): Promise<void> {
    await Promise.allSettled([...this.writing]);
  }

  private readonly onStreamError = (error: Error) => this.onerror?.(error);

  private readonly onData = (chunk: Buffer | string) => {
    let data = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    for (let newline = data.indexOf(10); newline >= 0; newline = data.indexOf(10)) {
      this.take(data.subarray(0, newline));
      const line = Buffer.concat(this.chunks).toString("utf8");
      const skipped = this.skipping;
      this.chunks = [];
      this.bytes = 0;
      this.skipping = false;
      data = data.subarray(newline + 1);
      if (skipped) this.answer({ replies: [tooLong()] });
      else this.answer(screenLine(line));
    }
    this.take(data);
  };

  private take(part: Buffer): void {
    if (this.skipping || part.length === 0) return;
    this.bytes += part.length;
    if (this.bytes > MAX_LINE_BYTES) {
      this.skipping = true;
      this.chunks = [];
    } else this.chunks.push(part);
  }

  private answer(screened: ReturnType<typeof screenLine>): void {
    for (const reply of screened.replies) this.send(reply).catch((error: Error) => this.onerror?.(error));
    if (screened.message) this.onmessage?.(screened.message);
  }
}

function tooLong(): GuardReply {
  const message = `Parse error: a line longer than ${MAX_LINE_BYTES} bytes was skipped`;
  return { jsonrpc: "2.0", id: null, error: { code: PARSE_ERROR, message } };
}
