// claude's mcpServers map as codex [mcp_servers.*] tables: what each server becomes (read back with a
// TOML parser), and which ones codex cannot run (refused, never dropped silently).
import { describe, expect, test } from "bun:test";
import {
  codexMcpName,
  planCodexMcpServers,
  refuseCodexMcpServers,
} from "../../../src/core/providers/codex/mcp.ts";

const parse = (toml: readonly string[]) =>
  (Bun.TOML.parse(toml.join("\n")) as { mcp_servers?: Record<string, unknown> }).mcp_servers;

const ENV = ["PATH", "HOME", "LANG", "SSH_AUTH_SOCK"];
const FORWARDED = ["HOME", "LANG", "PATH", "SSH_AUTH_SOCK", "UMBEL_HOME", "UMBEL_SESSION"];

describe("planCodexMcpServers", () => {
  test.each([
    [
      "stdio: command, args, env; the worker's env names forwarded",
      { s: { command: "/usr/bin/umbel", args: ["mcp", "--x"], env: { TOKEN: "t" } } },
      { s: { command: "/usr/bin/umbel", args: ["mcp", "--x"], env: { TOKEN: "t" }, env_vars: FORWARDED } },
    ],
    [
      'type "stdio" spelled out; a name of its own env is not forwarded',
      { s: { type: "stdio", command: "srv", env: { HOME: "/elsewhere" } } },
      { s: { command: "srv", env: { HOME: "/elsewhere" }, env_vars: FORWARDED.filter((n) => n !== "HOME") } },
    ],
    [
      "streamable HTTP: url and headers",
      { web: { type: "http", url: "https://x.test/mcp", headers: { Authorization: "Bearer a" } } },
      { web: { url: "https://x.test/mcp", http_headers: { Authorization: "Bearer a" } } },
    ],
    [
      "odd strings survive TOML: quotes, backslashes, newlines, control characters, unicode",
      {
        s: {
          command: 'C:\\bin\\"srv"',
          args: ["line1\nline2", "tab\there", "\u0001", "ünïcødé ✓ 🎉"],
          env: { 'K"Q': "v\\al\r\nue" },
        },
      },
      {
        s: {
          command: 'C:\\bin\\"srv"',
          args: ["line1\nline2", "tab\there", "\u0001", "ünïcødé ✓ 🎉"],
          env: { 'K"Q': "v\\al\r\nue" },
          env_vars: FORWARDED,
        },
      },
    ],
    [
      "names outside [A-Za-z0-9_-] are rewritten (codex skips them)",
      { "my server.ü": { command: "a" }, "ok-name_1": { command: "b" } },
      {
        my_server__: { command: "a", env_vars: FORWARDED },
        "ok-name_1": { command: "b", env_vars: FORWARDED },
      },
    ],
  ])("%s", (_name, servers, expected) => {
    const plan = planCodexMcpServers(servers, ENV);
    expect(plan.refused).toEqual([]);
    expect(parse(plan.toml)).toEqual(expected);
  });

  test.each([
    ["sse", { s: { type: "sse", url: "https://x.test/sse" } }, 'MCP server "s": codex has no SSE transport'],
    ["an unknown type", { s: { type: "ws", url: "ws://x" } }, 'MCP server "s": codex has no "ws" transport'],
    [
      "a key codex cannot express",
      { s: { type: "http", url: "https://x", headersHelper: "./h.sh" } },
      'MCP server "s": codex cannot express "headersHelper"',
    ],
    ["no command", { s: { args: ["x"] } }, '"command" must be a non-empty string'],
    ["args not strings", { s: { command: "x", args: [1] } }, '"args" must be an array of strings'],
    ["env not strings", { s: { command: "x", env: { A: 1 } } }, '"env" must be an object of strings'],
    ["http without url", { s: { type: "http" } }, '"url" must be a string'],
    [
      "two names that become one",
      { "a b": { command: "x" }, a_b: { command: "y" } },
      'MCP servers "a b" and "a_b" are both "a_b" for codex',
    ],
  ])("refused: %s", (_name, servers, message) => {
    const plan = planCodexMcpServers(servers, ENV);
    expect(plan.refused).toHaveLength(1);
    expect(plan.refused[0]).toContain(message);
    expect(refuseCodexMcpServers(servers)).toContain(message);
    expect(refuseCodexMcpServers(servers)).toContain("--provider codex");
  });

  test("a refused server leaves the others in place", () => {
    const plan = planCodexMcpServers({ bad: { type: "sse", url: "u" }, good: { command: "g" } }, []);
    expect(Object.keys(parse(plan.toml) ?? {})).toEqual(["good"]);
  });

  test("nothing to refuse", () => {
    expect(refuseCodexMcpServers(undefined)).toBeNull();
    expect(refuseCodexMcpServers({ s: { command: "x" } })).toBeNull();
  });

  test.each([
    ["umbel", "umbel"],
    ["a-b_C9", "a-b_C9"],
    ["odd.name", "odd_name"],
    ["", "_"],
  ])("codexMcpName(%j)", (name, key) => {
    expect(codexMcpName(name)).toBe(key);
  });
});
