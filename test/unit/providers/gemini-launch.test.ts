import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import {
  type GeminiHomeInput,
  type HomeEntry,
  planGeminiHome,
} from "../../../src/core/providers/gemini/home.ts";
import { escapeMemoryImports, toGeminiMcpServers } from "../../../src/core/providers/gemini/launch.ts";

/** claude's launch flags that live in a gemini worker's home: settings.json, GEMINI.md, the system prompt. */

const HOME = "/state/sessions/w1/gemini";
const DIR = `${HOME}/.gemini`;
const INPUT: GeminiHomeInput = {
  home: HOME,
  userDir: "/home/u/.gemini",
  userSettings: null,
  userFiles: [],
  hookCommand: "sh hook.sh log",
  eventsLog: "/state/sessions/w1/events/hooks.jsonl",
  envNames: ["GEMINI_API_KEY"],
};

// biome-ignore lint/suspicious/noExplicitAny: parsed settings.json, read field by field
function settingsOf(entries: readonly HomeEntry[]): Record<string, any> {
  const file = entries.find((entry) => entry.kind === "file" && entry.path === `${DIR}/settings.json`);
  if (file?.kind !== "file") throw new Error("no settings.json planned");
  return JSON.parse(file.content);
}

/** Every entry but the home, its .gemini dir and settings.json. */
const extras = (entries: readonly HomeEntry[]) =>
  entries.filter((entry) => ![HOME, DIR, `${DIR}/settings.json`].includes(entry.path));

describe("gemini home: launch flags", () => {
  test("none: nothing beyond the plain home", () => {
    expect(extras(planGeminiHome({ ...INPUT, launch: {} }).entries)).toEqual([]);
  });

  test("--system-prompt: a private file GEMINI_SYSTEM_MD points at, the text as given", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: gemini's own placeholder, kept as text
    const text = "You are terse.\n\n\n${AvailableTools} @not-an-import\n";
    expect(extras(planGeminiHome({ ...INPUT, launch: { systemPrompt: text } }).entries)).toEqual([
      { kind: "file", path: `${HOME}/system-prompt.md`, content: text, mode: 0o600 },
    ]);
  });

  test.each([
    [
      "no GEMINI.md of the user's",
      null,
      undefined,
      [{ kind: "file", name: "GEMINI.md", content: "APPENDED\n" }],
    ],
    [
      "after the user's GEMINI.md (a copy: one file)",
      "# mine\nbe kind\n\n",
      undefined,
      [{ kind: "file", name: "GEMINI.md", content: "# mine\nbe kind\n\nAPPENDED\n" }],
    ],
    [
      "context.fileName names others: the last one, the user's GEMINI.md still linked",
      "# mine",
      ["GEMINI.md", "AGENTS.md"],
      [
        { kind: "link", name: "GEMINI.md" },
        { kind: "file", name: "AGENTS.md", content: "APPENDED\n" },
      ],
    ],
    [
      "context.fileName without GEMINI.md: the user's is not gemini's then",
      "# mine",
      "CONTEXT.md",
      [{ kind: "file", name: "CONTEXT.md", content: "APPENDED\n" }],
    ],
  ])("--append-system-prompt %s", (_name, userMemory, fileName, expected) => {
    const userSettings = fileName === undefined ? null : JSON.stringify({ context: { fileName } });
    const entries = extras(
      planGeminiHome({ ...INPUT, userSettings, userMemory, launch: { appendSystemPrompt: "APPENDED" } })
        .entries,
    );
    expect(
      entries.map((entry) => ({
        kind: entry.kind as string,
        name: entry.path.slice(DIR.length + 1),
        ...(entry.kind === "file" ? { content: entry.content } : {}),
      })),
    ).toEqual(expected);
    for (const entry of entries) {
      if (entry.kind === "file") expect(entry.mode).toBe(0o600);
      if (entry.kind === "link") expect(entry.target).toBe("/home/u/.gemini/GEMINI.md");
    }
  });

  test("without an append the user's GEMINI.md is linked, as gemini itself would read it", () => {
    expect(extras(planGeminiHome({ ...INPUT, userMemory: "# mine" }).entries)).toEqual([
      { kind: "link", path: `${DIR}/GEMINI.md`, target: "/home/u/.gemini/GEMINI.md" },
    ]);
  });

  test.each([
    ["@file.md at the start", "@file.md", "\u2060@file.md"],
    ["after a space, a tab or a newline", "see @./a x\t@/b\n@c", "see \u2060@./a x\t\u2060@/b\n\u2060@c"],
    ["mail addresses and lone @ stay", "a@b.c @ @1 @-x", "a@b.c @ @1 @-x"],
  ])("imports in the appended text are neutralised: %s", (_name, text, escaped) => {
    expect(escapeMemoryImports(text)).toBe(escaped);
  });

  test("--disallowed-tools: tools.exclude, after the user's own, names as given", () => {
    const userSettings = JSON.stringify({ tools: { exclude: ["web_fetch"], sandbox: "docker" } });
    const settings = settingsOf(
      planGeminiHome({
        ...INPUT,
        userSettings,
        launch: { disallowedTools: ["run_shell_command", "web_fetch", "mcp_fs_write"] },
      }).entries,
    );
    expect(settings.tools).toEqual({
      sandbox: "docker",
      exclude: ["web_fetch", "run_shell_command", "mcp_fs_write"],
    });
  });

  const TUI_ONLY = {
    shell: ["run_shell_command", "list_background_processes", "read_background_output"],
    asks: ["ask_user", "write_todos", "activate_skill"],
  };
  test.each<[object, string[] | undefined]>([
    // interactive: the TUI's own tools
    [{}, undefined],
    // gemini -p 0.61.0 offers none of the tools that would ask (measured per approval mode)
    [{ nonInteractive: true }, ["replace", "write_file", "web_fetch", ...TUI_ONLY.shell, ...TUI_ONLY.asks]],
    [{ nonInteractive: true, permissionMode: "acceptEdits" }, [...TUI_ONLY.shell, ...TUI_ONLY.asks]],
    [{ nonInteractive: true, permissionMode: "plan" }, ["web_fetch", "ask_user", "activate_skill"]],
    [{ nonInteractive: true, permissionMode: "bypassPermissions" }, ["ask_user"]],
    [{ nonInteractive: true, unattended: true }, ["ask_user"]],
    // an allowed tool is offered (gemini -p --allowed-tools), the background-shell tools are not
    [
      { nonInteractive: true, allowedTools: ["run_shell_command(git diff)", "write_file"] },
      ["replace", "web_fetch", ...TUI_ONLY.shell.slice(1), ...TUI_ONLY.asks],
    ],
    [
      { nonInteractive: true, permissionMode: "bypassPermissions", disallowedTools: ["web_fetch"] },
      ["web_fetch", "ask_user"],
    ],
  ])("non-interactive %j: tools.exclude %j", (launch, exclude) => {
    const settings = settingsOf(planGeminiHome({ ...INPUT, launch }).entries);
    expect(settings.tools?.exclude).toEqual(exclude);
  });

  test("non-interactive: gemini -p offers no tool of an untrusted MCP server (measured), so neither does the TUI", () => {
    const userSettings = JSON.stringify({
      mcpServers: { mine: { command: "mine" }, trusted: { command: "t", trust: true } },
    });
    const servers = { given: { command: "umbel", args: ["mcp"] } };
    const settingsFor = (launch: object) =>
      settingsOf(
        planGeminiHome({ ...INPUT, userSettings, launch: { mcpServers: servers, ...launch } }).entries,
      );
    expect(settingsFor({ nonInteractive: true }).mcp).toEqual({ excluded: ["mine", "given"] });
    // yolo asks about nothing: every server's tools stay; interactive: as the user has them
    expect(settingsFor({ nonInteractive: true, permissionMode: "bypassPermissions" }).mcp).toBeUndefined();
    expect(settingsFor({}).mcp).toBeUndefined();
  });

  test("--mcp-config: claude's servers merged over the user's; mcp.allowed / excluded let them load", () => {
    const userSettings = JSON.stringify({
      mcpServers: { mine: { command: "mine" }, shared: { command: "old" } },
      mcp: { allowed: ["mine"], excluded: ["shared", "other"] },
    });
    const plan = planGeminiHome({
      ...INPUT,
      userSettings,
      launch: {
        mcpServers: {
          shared: { command: "umbel", args: ["mcp"], env: { A: "1" } },
          web: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer x" } },
        },
      },
    });
    const settings = settingsOf(plan.entries);
    expect(settings.mcpServers).toEqual({
      mine: { command: "mine" },
      shared: { command: "umbel", args: ["mcp"], env: { A: "1" } },
      web: { type: "http", url: "http://127.0.0.1:9/mcp", headers: { Authorization: "Bearer x" } },
    });
    expect(settings.mcp).toEqual({ allowed: ["mine", "shared", "web"], excluded: ["other"] });
  });
});

describe("claude's MCP servers as gemini's", () => {
  test.each([
    ["stdio without a type", { command: "x", args: ["-v"], env: { K: "v" } }],
    ["stdio with its type", { type: "stdio", command: "x" }],
    ["streamable http", { type: "http", url: "https://h/mcp", headers: { H: "1" } }],
    ["sse", { type: "sse", url: "https://h/sse" }],
    ["gemini's own fields pass", { httpUrl: "https://h/mcp", timeout: 5000, includeTools: ["a"] }],
  ])("%s: as it is", (_name, server) => {
    expect(toGeminiMcpServers({ s: server })).toEqual({ s: server });
  });

  test.each([
    [{ type: "ws", url: "ws://h" }, 'server "s" has type "ws"; gemini takes stdio, http and sse'],
    [{ type: "http" }, 'server "s" needs a url'],
    [{ type: "stdio", url: "https://h" }, 'server "s" needs a command'],
    [{ env: {} }, 'server "s" needs a command or a url'],
    [{ command: "x", headersHelper: "h.sh" }, 'server "s" has headersHelper, which gemini does not take'],
  ])("%o is a usage error naming gemini", (server, message) => {
    let error: unknown;
    try {
      toGeminiMcpServers({ s: server });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect(error).toMatchObject({ code: "usage", exitCode: 2, message: `--mcp-config: ${message}` });
    expect((error as UsageError).data).toEqual({ provider: "gemini", name: "s" });
  });
});
