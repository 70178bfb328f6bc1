import { describe, expect, test } from "bun:test";
import { getProvider } from "../../../src/core/providers/registry.ts";
import type { SpawnInput } from "../../../src/core/spawn/input.ts";
import { type LaunchRequest, launchRequest, type ResolvedSpawn } from "../../../src/core/spawn/request.ts";

/** The one mapping of SpawnInput onto what the providers read (core/spawn/request.ts). */

const NONE: ResolvedSpawn = { addDirs: undefined, mcpServers: undefined, envNames: [], sessionTrust: false };
const claude = getProvider("claude");
const gemini = getProvider("gemini");
const base: SpawnInput = { name: "w1", provider: "claude" };

/** The request of `over` (on top of a bare spawn) with the defined fields only. */
function requestOf(
  over: Partial<SpawnInput>,
  resolved: Partial<ResolvedSpawn> = {},
  provider = claude,
): Partial<LaunchRequest> {
  const request = launchRequest({ ...base, ...over }, provider, { ...NONE, ...resolved });
  return Object.fromEntries(Object.entries(request).filter(([, value]) => value !== undefined));
}

describe("launchRequest", () => {
  test("a bare spawn asks for nothing but the defaults", () => {
    expect(requestOf({})).toEqual({ unattended: false, sessionTrust: false, launchFlags: [], envNames: [] });
  });

  test.each<[string, Partial<SpawnInput>, Partial<LaunchRequest>]>([
    ["model", { model: "opus" }, { model: "opus" }],
    ["permissionMode", { permissionMode: "plan" }, { permissionMode: "plan" }],
    ["allowedTools", { allowedTools: ["Read"] }, { allowedTools: ["Read"] }],
    ["unattended", { unattended: true }, { unattended: true }],
    ["nonInteractive", { nonInteractive: true }, { nonInteractive: true }],
    ["resumeSession → resumeSessionId", { resumeSession: "sid-9" }, { resumeSessionId: "sid-9" }],
    ["onLimit", { onLimit: "stop" }, { onLimit: "stop" }],
    ["account", { account: "work" }, { account: "work" }],
    [
      "continueSession, a launch flag",
      { continueSession: true },
      { continueSession: true, launchFlags: ["--continue"] },
    ],
    [
      "disallowedTools, a launch flag",
      { disallowedTools: ["Bash"] },
      { disallowedTools: ["Bash"], launchFlags: ["--disallowed-tools"] },
    ],
    [
      "systemPrompt, a launch flag",
      { systemPrompt: "be brief" },
      { systemPrompt: "be brief", launchFlags: ["--system-prompt"] },
    ],
    [
      "appendSystemPrompt, a launch flag",
      { appendSystemPrompt: "and kind" },
      { appendSystemPrompt: "and kind", launchFlags: ["--append-system-prompt"] },
    ],
    ["settings, a launch flag", { settings: "{}" }, { settings: "{}", launchFlags: ["--settings"] }],
    [
      "mcpConfig, a launch flag (passed through as given)",
      { mcpConfig: ["a.json"] },
      { mcpConfig: ["a.json"], launchFlags: ["--mcp-config"] },
    ],
    ["structured, a launch flag only", { structured: true }, { launchFlags: ["--structured"] }],
  ])("%s", (_field, over, expected) => {
    expect(requestOf(over)).toMatchObject(expected);
  });

  test("every launch flag given, in one order", () => {
    const request = requestOf({
      structured: true,
      continueSession: true,
      mcpConfig: ["{}"],
      settings: "{}",
      addDir: ["d"],
      appendSystemPrompt: "a",
      systemPrompt: "s",
      disallowedTools: ["Bash"],
    });
    expect(request.launchFlags).toEqual([
      "--disallowed-tools",
      "--system-prompt",
      "--append-system-prompt",
      "--add-dir",
      "--settings",
      "--mcp-config",
      "--continue",
      "--structured",
    ]);
  });

  test.each<[string, Partial<SpawnInput>]>([
    ["an empty --disallowed-tools", { disallowedTools: [] }],
    ["an empty --add-dir", { addDir: [] }],
    ["an empty --mcp-config", { mcpConfig: [] }],
    ["continueSession false", { continueSession: false }],
    ["structured false", { structured: false }],
  ])("%s is no launch flag", (_case, over) => {
    expect(requestOf(over).launchFlags).toEqual([]);
  });

  test("what spawn resolved replaces what was given: the folders, the servers, the names, the trust", () => {
    const mcpServers = { docs: { command: "docs-server" } };
    expect(
      requestOf(
        { addDir: ["rel"], mcpConfig: ["m.json"], env: { A: "1" } },
        { addDirs: ["/abs/rel"], mcpServers, envNames: ["A", "FROM_CONFIG"], sessionTrust: true },
      ),
    ).toMatchObject({
      addDirs: ["/abs/rel"],
      mcpConfig: ["m.json"],
      mcpServers,
      envNames: ["A", "FROM_CONFIG"],
      sessionTrust: true,
      launchFlags: ["--add-dir", "--mcp-config"],
    });
  });

  test.each<[string, typeof claude, Partial<SpawnInput>, string[] | undefined]>([
    [
      "claude decides --allow in its hook: allowedTools stay as given",
      claude,
      { allow: ["Read"] },
      undefined,
    ],
    ["gemini's own allowlist takes --allow rules", gemini, { allow: ["read_file"] }, ["read_file"]],
    [
      "gemini: given tools first, then the rules",
      gemini,
      { allowedTools: ["glob"], allow: ["read_file"] },
      ["glob", "read_file"],
    ],
    ["gemini with no rules and no tools: none", gemini, {}, undefined],
    ["an empty allowedTools stays empty", claude, { allowedTools: [] }, []],
  ])("%s", (_case, provider, over, allowedTools) => {
    expect(launchRequest({ ...base, ...over }, provider, NONE).allowedTools).toEqual(allowedTools);
  });

  test("claude's refusal check reads the request: the settings, the --env names", () => {
    const request = launchRequest({ ...base, settings: '{"disableAllHooks":true}' }, claude, {
      ...NONE,
      envNames: [],
    });
    expect(claude.checkLaunchOptions?.(request)).toMatch("disableAllHooks");
    expect(
      claude.checkLaunchOptions?.(launchRequest(base, claude, { ...NONE, envNames: ["CLAUDE_CODE_SIMPLE"] })),
    ).toMatch("--bare");
  });
});
