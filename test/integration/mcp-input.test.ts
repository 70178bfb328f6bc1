import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { connectMcp, type McpHarness, textOf } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * The MCP tools read the CLI's own schemas, so issue 11's input rules hold there too: a blank prompt,
 * an unknown key name and a duration past 7 days are refused before any worker is looked up.
 */

let sb: Sandbox;
let mcp: McpHarness;
beforeAll(async () => {
  sb = await createSandbox();
  mcp = await connectMcp(sb);
});
afterAll(async () => {
  await mcp.close();
  await sb.dispose();
});

describe("bad input over MCP", () => {
  test.each([
    ["umbel_send", { name: "w1", prompt: "\t" }, "the prompt is empty"],
    ["umbel_send", { name: "w1", prompt: "" }, "the prompt is empty"],
    ["umbel_keys", { name: "w1", keys: ["NoSuchKey"] }, 'unknown key name "NoSuchKey"'],
    ["umbel_wait", { name: "w1", timeout: "99999999h" }, "at most 168h (7 days)"],
    ["umbel_wait", { name: "w1", idleTimeout: 1e300 }, "at most 168h (7 days)"],
    ["umbel_spawn", { name: "w1", startTimeout: "2147484s" }, "at most 168h (7 days)"],
    // The enum's own message, as the CLI and YAML give it (issue 21).
    [
      "umbel_spawn",
      { name: "w1", provider: "claud" },
      '"claud" is not one of claude, codex, gemini, opencode; did you mean claude?',
    ],
    ["umbel_pool", { action: "warn" }, '"warn" is not one of warm, ls, drain; did you mean warm?'],
  ])("%s %j", async (tool, args, message) => {
    const r = await mcp.call(tool, args);
    expect(r.isError).toBe(true);
    expect(textOf(r)).toContain("Input validation error");
    expect(textOf(r)).toContain(message);
  });

  test("umbel_keys with literal types any text (here: to no worker)", async () => {
    const r = await mcp.call("umbel_keys", { name: "w1", keys: ["NoSuchKey"], literal: true });
    expect(textOf(r)).toContain("no worker named w1");
  });
});
