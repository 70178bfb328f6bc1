import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

setDefaultTimeout(30_000);

/**
 * umbel's StructuredOutput server (`umbel __structured-output ROOT WORKER`) marks itself ready only
 * once its client has listed its tools: a CLI that has only sent `initialized` may not offer the tool
 * in its next request yet (claude 2.1.332 under load: the first call failed "No such tool available",
 * so a fifth invalid call was never counted, print-parity's `--json-schema retries` in CI f3).
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
  const spawned = await sb.umbel(["spawn", "w1"]);
  expect(spawned.code).toBe(0);
});
afterAll(async () => {
  await sb.umbel(["kill", "w1", "--purge"]);
  await sb.dispose();
});

describe("the StructuredOutput server's ready mark", () => {
  test("comes with the answer to tools/list, not at initialized", async () => {
    const mark = join(sb.root, "sessions", "w1", "guards", "server-ready");
    const server = Bun.spawn([UMBEL, "__structured-output", sb.root, "w1"], {
      env: sb.env,
      stdin: "pipe",
      stdout: "pipe",
      stderr: "ignore",
    });
    const reader = server.stdout.getReader();
    let buffered = "";
    const response = async (id: number) => {
      for (;;) {
        const line = buffered.split("\n").find((l) => l.includes(`"id":${id}`));
        if (line) return JSON.parse(line) as { result?: { tools?: { name: string }[] } };
        const { value, done } = await reader.read();
        if (done) throw new Error("the server closed its stdout");
        buffered += new TextDecoder().decode(value);
      }
    };
    const send = (message: object) => {
      server.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...message })}\n`);
      server.stdin.flush();
    };
    try {
      send({
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "1" } },
      });
      await response(1);
      send({ method: "notifications/initialized" });
      // A request after the notification is answered only once the notification was handled.
      send({ id: 2, method: "ping" });
      await response(2);
      // The mark's write is asynchronous: give one a moment to land if it were coming.
      await Bun.sleep(300);
      expect(existsSync(mark)).toBe(false);
      send({ id: 3, method: "tools/list" });
      const tools = await response(3);
      expect(tools.result?.tools?.map((t) => t.name)).toEqual(["StructuredOutput"]);
      for (let i = 0; i < 100 && !existsSync(mark); i++) await Bun.sleep(20);
      expect(existsSync(mark)).toBe(true);
    } finally {
      server.stdin.end();
      await server.exited;
    }
  });
});
