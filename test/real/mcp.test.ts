// The REAL Claude Code TUI driven entirely through `dist/umbel mcp` (an SDK client over stdio)
// against the stub model on loopback: spawn → send → wait → read → kill, and a permission prompt
// answered with umbel_keys.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ToolResult } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { renderPromptEcho } from "../stub-model/digest.ts";
import { bash, text } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { seedClaudeHome } from "./claude-home.ts";
import { requireRealClaude } from "./real-bin.ts";

// Real workers take seconds; bun's default is 5 s, and a preload's setDefaultTimeout reaches only
// the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

const claude = requireRealClaude("test/real/mcp.test.ts");
const API_KEY = "sk-ant-test-umbel-mcp-0123456789abcdefghij";
/** The key reaches a worker only by name, from the server's own environment. */
const KEY_ENV = { ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_API_KEY" } };

type Outcome = { reason: string; exitCode: number; evidence: Record<string, unknown> };

describe.skipIf(claude === null)("real claude through umbel mcp", () => {
  let stub: StubModel;
  let dir: string;
  let sb: Sandbox;
  let client: Client;

  beforeAll(async () => {
    stub = await startStubModel({ dialect: "anthropic" });
    dir = await mkdtemp(join(tmpdir(), "umbel-real-mcp-"));
    const home = seedClaudeHome(dir, { apiKey: API_KEY });
    sb = await createSandbox({
      untrusted: true,
      env: {
        HOME: home.home,
        CLAUDE_CONFIG_DIR: home.configDir,
        TMPDIR: home.tmpDir,
        DISABLE_AUTOUPDATER: "1",
        ANTHROPIC_BASE_URL: stub.url,
        ANTHROPIC_API_KEY: API_KEY,
        UMBEL_CLAUDE_BIN: claude ?? "claude",
      },
    });
    client = new Client({ name: "umbel-real", version: "0" });
    await client.connect(
      new StdioClientTransport({ command: UMBEL, args: ["mcp"], env: sb.env, cwd: sb.work }),
    );
    await client.listTools();
  });
  afterAll(async () => {
    await client?.close();
    await sb?.dispose();
    await stub?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function ok<T = Record<string, unknown>>(name: string, args: Record<string, unknown>): Promise<T> {
    const r = (await client.callTool({ name, arguments: args })) as ToolResult;
    if (r.isError) throw new Error(`${name}: ${r.content.map((c) => c.text).join("\n")}`);
    return r.structuredContent as T;
  }

  async function turn(name: string, prompt: string) {
    const { baseline } = await ok<{ baseline: number }>("umbel_send", { name, prompt });
    return { baseline, outcome: await ok<Outcome>("umbel_wait", { name, after: baseline, timeout: "30s" }) };
  }

  test("spawn (trust dialog answered) → send → wait (stop) → read → kill", async () => {
    const spawned = await ok("umbel_spawn", { name: "talk", env: KEY_ENV });
    expect(spawned).toMatchObject({ state: "ready", dialogsAnswered: ["trust"] });
    const { baseline, outcome } = await turn("talk", "what is 2+2?");
    expect(outcome).toMatchObject({ reason: "stop", exitCode: 0 });
    const read = await ok<{ text: string }>("umbel_read", { name: "talk", after: baseline });
    expect(read.text).toBe(renderPromptEcho("what is 2+2?"));
    stub.script(text("second answer"));
    await turn("talk", "again");
    expect(await ok("umbel_read", { name: "talk" })).toMatchObject({ text: "second answer" });
    expect(await ok("umbel_kill", { name: "talk", purge: true })).toMatchObject({ state: "purged" });
  });

  test("a permission prompt: wait says input; keys 1 approves; the same wait then stops", async () => {
    await ok("umbel_spawn", { name: "perm", permissionMode: "manual", env: KEY_ENV });
    stub.script(bash("sleep 2; echo approved > approved.txt", text("done after approval")));
    const asked = await turn("perm", "please run it");
    expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    expect(String(asked.outcome.evidence.prompt)).toContain("approved.txt");
    await ok("umbel_keys", { name: "perm", keys: ["1"] });
    // The command runs for 2 s with no hook in between: the answered prompt must not read as input.
    const done = await ok<Outcome>("umbel_wait", { name: "perm", after: asked.baseline, timeout: "30s" });
    expect(done).toMatchObject({ reason: "stop" }); // on failure, the evidence shows what the screen said
    expect(await ok("umbel_read", { name: "perm" })).toMatchObject({ text: "done after approval" });
    expect(readFileSync(join(sb.work, "approved.txt"), "utf8")).toBe("approved\n");
    await ok("umbel_kill", { name: "perm", purge: true });
  });
});
