import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { type ToolResult, textOf } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * `provider: opencode` through the MCP server and a workflow file, on fake-opencode.sh: the faces
 * read the same ProviderId enum and run the same operations, with no opencode code of their own.
 */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

describe("opencode on every face", () => {
  test("MCP: umbel_spawn {provider: opencode} → send → wait → read → kill", async () => {
    const client = new Client({ name: "umbel-e2e", version: "0" });
    await client.connect(
      new StdioClientTransport({ command: UMBEL, args: ["mcp"], env: sb.env, cwd: sb.work, stderr: "pipe" }),
    );
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = (await client.callTool({ name, arguments: args })) as ToolResult;
      if (r.isError) throw new Error(`${name}: ${textOf(r)}`);
      return r.structuredContent as Record<string, unknown>;
    };
    try {
      expect(await call("umbel_spawn", { name: "mo", provider: "opencode" })).toMatchObject({
        provider: "opencode",
        state: "ready",
      });
      const { baseline } = await call("umbel_send", { name: "mo", prompt: "fake:reply over mcp" });
      expect(await call("umbel_wait", { name: "mo", after: baseline })).toMatchObject({
        reason: "stop",
        evidence: { message: "over mcp" },
      });
      expect(await call("umbel_read", { name: "mo", after: baseline })).toMatchObject({ text: "over mcp" });
      await call("umbel_kill", { name: "mo", purge: true });
    } finally {
      await client.close();
    }
  }, 60_000);

  test("workflow: a worker with provider opencode keeps its conversation across steps", async () => {
    writeFileSync(
      join(sb.work, "oc.yaml"),
      `workers:
  oc: { provider: opencode }
steps:
  - { id: first, run: oc, prompt: "fake:reply an answer", outputs: { a: answer } }
  - { id: second, run: oc, needs: [first], prompt: "fake:history {{ steps.first.outputs.a }}", outputs: { b: answer } }
`,
    );
    const r = await sb.umbel(["run", "oc.yaml", "--json"]);
    const summary = JSON.parse(r.stdout.trim().split("\n").at(-1) ?? "{}");
    expect(summary).toMatchObject({
      event: "summary",
      status: "done",
      outputs: { first: { a: "an answer" }, second: { b: expect.stringMatching(/^HISTORY n=1 /) } },
    });
    expect(r.code).toBe(0);
  }, 60_000);
});
