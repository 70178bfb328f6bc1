import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { ToolResult } from "../helpers/mcp-client.ts";
import { createSandbox, type Sandbox, UMBEL } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * The provider when none is given (issue 21, item 2), through dist/umbel on the fakes: `umbel exec`
 * runs codex and gemini -p's dialect gemini, as the lines written for them expect; UMBEL_PROVIDER,
 * else config.toml's `provider`, sets it for every face (spawn, -p in each dialect, MCP, workflows);
 * --provider (and YAML provider:) always wins. Claude Code is missing here, so every turn that
 * succeeds ran another CLI.
 */

const NO_CLAUDE = { UMBEL_CLAUDE_BIN: "/nonexistent/claude" };

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ env: { GEMINI_API_KEY: "fake-key", ...NO_CLAUDE } });
});
afterAll(async () => {
  await sb.dispose();
});

const writeConfig = (text: string) => {
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  writeFileSync(join(sb.root, "config.toml"), text);
};
const removeConfig = () => rmSync(join(sb.root, "config.toml"), { force: true });

describe("each dialect runs its own CLI", () => {
  test("umbel exec runs codex on a machine without Claude Code", async () => {
    const r = await sb.umbel(["exec", "--json", "fake:reply from codex"]);
    expect(r.stderr).toBe("");
    const events = r.stdout
      .trimEnd()
      .split("\n")
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(events[0]?.type).toBe("thread.started");
    expect(JSON.stringify(events)).toContain("from codex");
    expect(r.code).toBe(0);
  });

  test("UMBEL_DIALECT=gemini umbel -p runs gemini", async () => {
    const r = await sb.umbel(["-p", "-o", "json", "fake:reply from gemini"], {
      env: { UMBEL_DIALECT: "gemini" },
    });
    expect(r.stderr).toBe("");
    expect(JSON.parse(r.stdout).response).toBe("from gemini");
    expect(r.code).toBe(0);
  });

  test("claude -p's dialect runs claude: here, its missing CLI is named (127)", async () => {
    const r = await sb.umbel(["-p", "hi"]);
    expect(r.stderr).toContain("Claude Code CLI not found: /nonexistent/claude");
    expect(r.code).toBe(127);
  });
});

describe("UMBEL_PROVIDER and config.toml set the default of every face", () => {
  test("spawn and -p (claude's dialect) take UMBEL_PROVIDER; --provider wins", async () => {
    const env = { UMBEL_PROVIDER: "codex" };
    const spawned = await sb.umbel(["spawn", "dp1", "--json"], { env });
    expect(spawned.stderr).toBe("");
    expect(JSON.parse(spawned.stdout).provider).toBe("codex");
    const printed = await sb.umbel(["-p", "--output-format", "json", "fake:reply p"], { env });
    expect(JSON.parse(printed.stdout)).toMatchObject({ result: "p", umbel: { provider: "codex" } });
    const explicit = await sb.umbel(["spawn", "dp2", "--json", "--provider", "gemini"], { env });
    expect(JSON.parse(explicit.stdout).provider).toBe("gemini");
    await sb.umbel(["kill", "dp1", "--purge"]);
    await sb.umbel(["kill", "dp2", "--purge"]);
  });

  test("config.toml's provider, under UMBEL_PROVIDER, over the dialect's own CLI", async () => {
    writeConfig('provider = "gemini"\n');
    try {
      const spawned = await sb.umbel(["spawn", "dp3", "--json"]);
      expect(JSON.parse(spawned.stdout).provider).toBe("gemini");
      const exec = await sb.umbel(["exec", "--json", "fake:reply via config"]);
      expect(exec.stdout).toContain("via config");
      const overridden = await sb.umbel(["spawn", "dp4", "--json"], { env: { UMBEL_PROVIDER: "codex" } });
      expect(JSON.parse(overridden.stdout).provider).toBe("codex");
    } finally {
      removeConfig();
      await sb.umbel(["kill", "dp3", "--purge"]);
      await sb.umbel(["kill", "dp4", "--purge"]);
    }
  });

  test("a workflow worker without provider: takes it; one with provider: keeps its own", async () => {
    const file = join(sb.work, "wf.yaml");
    writeFileSync(
      file,
      "workers:\n  a: {}\n  b: { provider: gemini }\nsteps:\n  - { id: s1, run: a, prompt: 'fake:reply one', outputs: { text: answer } }\n  - { id: s2, run: b, prompt: 'fake:reply two', outputs: { text: answer } }\n",
    );
    const env = { UMBEL_PROVIDER: "codex" };
    const plan = await sb.umbel(["run", file, "--dry-run", "--json"], { env });
    expect(JSON.parse(plan.stdout).workers).toMatchObject({
      a: { provider: "codex" },
      b: { provider: "gemini" },
    });
    const run = await sb.umbel(["run", file, "--json"], { env });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout.trimEnd().split("\n").at(-1) ?? "{}")).toMatchObject({
      status: "done",
      outputs: { s1: { text: "one" }, s2: { text: "two" } },
    });
  });

  test("umbel_spawn without provider takes the server's UMBEL_PROVIDER", async () => {
    const client = new Client({ name: "umbel-e2e", version: "0" });
    await client.connect(
      new StdioClientTransport({
        command: UMBEL,
        args: ["mcp"],
        env: { ...sb.env, UMBEL_PROVIDER: "codex" },
        cwd: sb.work,
        stderr: "pipe",
      }),
    );
    try {
      await client.listTools();
      const r = (await client.callTool({ name: "umbel_spawn", arguments: { name: "dp5" } })) as ToolResult;
      expect(r.isError).toBeFalsy();
      expect(r.structuredContent?.provider).toBe("codex");
      await client.callTool({ name: "umbel_kill", arguments: { name: "dp5", purge: true } });
    } finally {
      await client.close();
    }
  });

  test("a bad UMBEL_PROVIDER is a usage error with the near miss, before anything starts", async () => {
    const r = await sb.umbel(["spawn", "dp6"], { env: { UMBEL_PROVIDER: "codx" } });
    expect(r.stderr).toBe(
      'umbel: UMBEL_PROVIDER "codx" is not one of claude, codex, gemini, opencode; did you mean codex?\n',
    );
    expect(r.code).toBe(2);
    expect((await sb.umbel(["status", "dp6"])).code).toBe(3);
  });
});
