import { describe, expect, test } from "bun:test";
import { structuredServer } from "../../../src/core/guard/tool.ts";
import { claude } from "../../../src/core/providers/claude/provider.ts";
import { planCodexHome } from "../../../src/core/providers/codex/home.ts";
import { type HomeEntry, planGeminiHome } from "../../../src/core/providers/gemini/home.ts";

/**
 * spawn --structured: umbel's own binary as the worker's StructuredOutput MCP server, in each CLI's
 * config, allowed without a permission prompt.
 */

const server = structuredServer(["/opt/umbel"], "/state", "w1");

test("the server is umbel's hidden subcommand with the state root and the worker on argv", () => {
  expect(server).toEqual({ command: "/opt/umbel", args: ["__structured-output", "/state", "w1"] });
  expect(structuredServer(["/usr/bin/bun", "/src/main.ts"], "/s", "w")).toEqual({
    command: "/usr/bin/bun",
    args: ["/src/main.ts", "__structured-output", "/s", "w"],
  });
});

describe("claude", () => {
  const plan = (extra: object = {}) =>
    claude.planLaunch({ bin: "claude", sessionId: "s", hookCommand: "h", isRoot: false, ...extra });

  test("one more --mcp-config, and its tool in --allowedTools (after the caller's)", () => {
    const argv = plan({ structuredServer: server, allowedTools: ["Bash"], mcpConfig: ["mine.json"] }).argv;
    expect(argv).toContain("--mcp-config=mine.json");
    expect(argv).toContain(
      `--mcp-config=${JSON.stringify({ mcpServers: { umbel_structured: { type: "stdio", command: "/opt/umbel", args: server.args, alwaysLoad: true } } })}`,
    );
    expect(argv[argv.indexOf("--allowedTools") + 1]).toBe("Bash,mcp__umbel_structured__StructuredOutput");
  });

  test("without --structured nothing is added", () => {
    expect(plan().argv.join(" ")).not.toContain("umbel_structured");
    expect(plan().argv).not.toContain("--allowedTools");
  });
});

test("codex: an [mcp_servers.umbel_structured] table whose tools are approved without asking", () => {
  const files = planCodexHome({
    home: "/h",
    userHome: "/u/.codex",
    userConfig: null,
    worker: "w1",
    cwd: "/p",
    hookCommand: "sh hook.sh",
    launch: { structuredServer: server },
  }).files;
  const toml = Bun.TOML.parse(files.find((f) => f.path === "/h/umbel-w1.config.toml")?.content ?? "") as {
    mcp_servers?: unknown;
  };
  expect(toml.mcp_servers).toEqual({
    umbel_structured: { command: "/opt/umbel", args: server.args, default_tools_approval_mode: "approve" },
  });
});

test("gemini: mcpServers.umbel_structured with trust (its tools run without asking), beside the caller's", () => {
  const plan = planGeminiHome({
    home: "/h",
    userDir: null,
    userSettings: null,
    userFiles: [],
    hookCommand: "sh hook.sh",
    eventsLog: "/e/hooks.jsonl",
    envNames: [],
    launch: { structuredServer: server, mcpServers: { mine: { command: "mine" } } },
  });
  const file = plan.entries.find(
    (e: HomeEntry) => e.kind === "file" && e.path.endsWith("/settings.json"),
  ) as Extract<HomeEntry, { kind: "file" }>;
  expect(JSON.parse(file.content).mcpServers).toEqual({
    mine: { command: "mine" },
    umbel_structured: { command: "/opt/umbel", args: server.args, trust: true },
  });
});
