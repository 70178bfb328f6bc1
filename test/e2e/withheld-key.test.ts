import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ToolResult } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * A user with ANTHROPIC_API_KEY in the environment meets "not signed in" (issue 21, item 6): umbel
 * kept the key from the worker on purpose (it would move a subscription to API billing), so every
 * face says so and how to pass it — the CLI, -p, MCP and a workflow — naming the variable, never
 * its value. The fake claude shows its login screen (FAKE_CLAUDE_SIGNIN, passed by the config file).
 */
const KEY = "sk-ant-api03-never-shown";
const HINT =
  "ANTHROPIC_API_KEY is set, but umbel withheld it on purpose (an inherited key would bill the API instead of your subscription): to sign in with it, pass --env ANTHROPIC_API_KEY, or list it once in";

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ env: { ANTHROPIC_API_KEY: KEY, FAKE_CLAUDE_SIGNIN: "1" } });
  mkdirSync(sb.root, { mode: 0o700 });
  writeFileSync(join(sb.root, "config.toml"), '[claude]\nenv = ["FAKE_CLAUDE_SIGNIN"]\n');
});
afterAll(async () => {
  await sb.dispose();
});

describe("not signed in, with an API key umbel withheld", () => {
  test("spawn: the refusal (126) names the key, why, and --env / the config file", async () => {
    const r = await sb.umbel(["spawn", "k1", "--json"]);
    expect(r.stderr).toContain(
      `umbel: Claude Code is not signed in: ${HINT} ${join(sb.root, "config.toml")}`,
    );
    expect(JSON.parse(r.stdout).error).toMatchObject({
      code: "input",
      exitCode: 126,
      data: { withheld: ["ANTHROPIC_API_KEY"] },
    });
    expect(r.stdout + r.stderr).not.toContain(KEY);
    expect(r.code).toBe(126);
  });

  test("-p says the same", async () => {
    const r = await sb.umbel(["-p", "hi"]);
    expect(r.stderr).toContain(HINT);
    expect(r.stderr).not.toContain(KEY);
  });

  test("a workflow's failure says the same", async () => {
    const file = join(sb.work, "wf.yaml");
    writeFileSync(file, "workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: hi }\n");
    const r = await sb.umbel(["run", file]);
    expect(r.stderr).toContain(HINT);
    expect(r.stderr).not.toContain(KEY);
    expect(r.code).toBe(126);
  });

  test("umbel_spawn's error says the same", async () => {
    const client = new Client({ name: "umbel-e2e", version: "0" });
    await client.connect(
      new StdioClientTransport({ command: UMBEL, args: ["mcp"], env: sb.env, cwd: sb.work, stderr: "pipe" }),
    );
    try {
      const r = (await client.callTool({ name: "umbel_spawn", arguments: { name: "k2" } })) as ToolResult;
      expect(r.isError).toBe(true);
      expect(r.content[0]?.text).toContain(HINT);
      expect(JSON.parse(r.content[1]?.text ?? "{}").error.data.withheld).toEqual(["ANTHROPIC_API_KEY"]);
      expect(JSON.stringify(r)).not.toContain(KEY);
    } finally {
      await client.close();
    }
  });

  test("with the key passed, the hint is gone", async () => {
    const r = await sb.umbel(["spawn", "k3", "--env", "ANTHROPIC_API_KEY"]);
    expect(r.stderr).not.toContain("withheld");
    await sb.umbel(["kill", "k3", "--purge"]);
  });
});
