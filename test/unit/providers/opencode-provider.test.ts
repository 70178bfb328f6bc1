import { describe, expect, test } from "bun:test";
import type { HomeContext } from "../../../src/core/providers/home-types.ts";
import { planOpencodeHome } from "../../../src/core/providers/opencode/home.ts";
import { permissionRules, planOpencodeLaunch } from "../../../src/core/providers/opencode/launch.ts";
import { planOpencodeMcp } from "../../../src/core/providers/opencode/mcp.ts";
import { opencode, prepareOpencodePrompt } from "../../../src/core/providers/opencode/provider.ts";

const base = {
  bin: "/bin/opencode",
  sessionId: "u-1",
  hookCommand: "true",
  eventsLog: "/s/w/events/hooks.jsonl",
  isRoot: false,
};
const home = { path: "/s/sessions/w/opencode", worker: "w" };
const context = (over: Partial<HomeContext> = {}): HomeContext => ({
  stateRoot: "/s",
  sessionDir: "/s/sessions/w",
  worker: "w",
  cwd: "/work",
  hookCommand: "true",
  eventsLog: "/s/sessions/w/events/hooks.jsonl",
  eventsPlugin: "/s/bin/opencode-plugin-abc.js",
  hostEnv: { HOME: "/home/u" },
  workerEnvNames: [],
  launch: {},
  ...over,
});
const configOf = (plan: ReturnType<typeof planOpencodeHome>) => {
  const file = plan.entries.find((e) => e.kind === "file" && e.path.endsWith("/opencode.json"));
  return JSON.parse(file?.kind === "file" ? file.content : "{}");
};

describe("opencode launch", () => {
  test("plain: the worker's config, the plugin's events log, npm offline for opencode's own start", () => {
    expect(planOpencodeLaunch(base, home)).toEqual({
      argv: ["/bin/opencode"],
      env: {
        OPENCODE_CONFIG: "/s/sessions/w/opencode/opencode.json",
        UMBEL_OPENCODE_EVENTS: "/s/w/events/hooks.jsonl",
        npm_config_offline: "true",
        UMBEL_OPENCODE_NPM_OFFLINE: "1",
      },
    });
  });

  test.each([
    [{ model: "stub/stub-model" }, ["--model", "stub/stub-model"]],
    [{ resumeSessionId: "ses_abc" }, ["--session", "ses_abc"]],
    [{ continueSession: true }, ["--continue"]],
    [{ permissionMode: "plan" as const }, ["--agent", "plan"]],
  ])("%j → argv", (over, args) => {
    expect(planOpencodeLaunch({ ...base, ...over }, home).argv).toEqual(["/bin/opencode", ...args]);
  });

  test("permissions: unattended allows all; modes, allowed and disallowed tools become rules", () => {
    expect(permissionRules({ unattended: true, allowedTools: ["Bash"] })).toEqual({ "*": "allow" });
    expect(permissionRules({ permissionMode: "bypassPermissions" })).toEqual({ "*": "allow" });
    expect(permissionRules({ permissionMode: "acceptEdits" })).toEqual({ edit: "allow" });
    expect(
      permissionRules({
        allowedTools: ["Bash(git diff:*)", "WebFetch", "Write"],
        disallowedTools: ["Bash(rm:*)"],
      }),
    ).toEqual({ bash: { "git diff *": "allow", "rm *": "deny" }, webfetch: "allow", edit: "allow" });
    const env = planOpencodeLaunch({ ...base, unattended: true }, home).env;
    expect(JSON.parse(env.OPENCODE_PERMISSION ?? "")).toEqual({ "*": "allow" });
    expect(planOpencodeLaunch(base, home).env.OPENCODE_PERMISSION).toBeUndefined();
  });

  test("non-interactive (umbel -p): the plugin rejects every ask, and no question tool is offered", () => {
    const plan = planOpencodeLaunch({ ...base, nonInteractive: true }, home);
    expect(plan.env.UMBEL_OPENCODE_NON_INTERACTIVE).toBe("1");
    expect(JSON.parse(plan.env.OPENCODE_PERMISSION ?? "")).toEqual({ question: "deny" });
    expect(permissionRules({ nonInteractive: true, unattended: true })).toEqual({
      "*": "allow",
      question: "deny",
    });
    expect(permissionRules({ nonInteractive: true, permissionMode: "acceptEdits" })).toEqual({
      edit: "allow",
      question: "deny",
    });
    expect(planOpencodeLaunch(base, home).env.UMBEL_OPENCODE_NON_INTERACTIVE).toBeUndefined();
  });

  test.each([
    [{ launchFlags: ["--add-dir"] }, /--add-dir is not supported with --provider opencode/],
    [{ launchFlags: ["--settings"] }, /--settings is not supported with --provider opencode/],
    // umbel's StructuredOutput server is given to claude, codex and gemini only.
    [{ launchFlags: ["--structured"] }, /--structured is not supported with --provider opencode/],
    [{ permissionMode: "dontAsk" }, /opencode has no permission mode "dontAsk"/],
    [{ mcpServers: { x: { command: "a", oauth: {} } } }, /MCP server "x": oauth cannot be given to opencode/],
  ] as const)("%j is a usage error naming opencode", (options, message) => {
    expect(opencode.checkLaunchOptions?.(options as never)).toMatch(message);
  });

  test("supported flags and modes pass", () => {
    const flags = [
      "--system-prompt",
      "--append-system-prompt",
      "--mcp-config",
      "--disallowed-tools",
      "--continue",
    ];
    expect(
      opencode.checkLaunchOptions?.({
        launchFlags: flags as never,
        permissionMode: "plan",
        unattended: true,
      }),
    ).toBeNull();
  });
});

describe("opencode home", () => {
  test("one config file in the session dir: the plugin, no paste summary, no autoupdate", () => {
    const plan = planOpencodeHome(context(), {});
    expect(plan.home).toBe("/s/sessions/w/opencode");
    expect(plan.removeOnKill).toEqual([]);
    expect(plan.entries[0]).toEqual({ kind: "dir", path: "/s/sessions/w/opencode", mode: 0o700 });
    expect(configOf(plan)).toEqual({
      plugin: ["/s/bin/opencode-plugin-abc.js"],
      autoupdate: false,
      experimental: { disable_paste_summary: true },
    });
  });

  test("non-interactive: a rejected ask does not end the turn, the model goes on (continue_loop_on_deny)", () => {
    const plan = planOpencodeHome(context({ launch: { nonInteractive: true } }), {});
    expect(configOf(plan).experimental).toEqual({ disable_paste_summary: true, continue_loop_on_deny: true });
  });

  test("the user's own OPENCODE_CONFIG file (JSONC) stays underneath", () => {
    const file = "/home/u/oc.jsonc";
    const text =
      '{\n  // mine\n  "plugin": ["my-plugin"],\n  "experimental": {"batch_tool": true},\n  "model": "a/b",\n}\n';
    const ctx = context({ hostEnv: { HOME: "/home/u", OPENCODE_CONFIG: file } });
    expect(opencode.home.reads(ctx)).toEqual([file]);
    expect(configOf(planOpencodeHome(ctx, { [file]: text }))).toEqual({
      plugin: ["my-plugin", "/s/bin/opencode-plugin-abc.js"],
      model: "a/b",
      autoupdate: false,
      experimental: { batch_tool: true, disable_paste_summary: true },
    });
  });

  test("--system-prompt, --append-system-prompt and --mcp-config", () => {
    const plan = planOpencodeHome(
      context({
        launch: {
          systemPrompt: "SYSTEM",
          appendSystemPrompt: "APPENDED\n",
          mcpServers: {
            umbel: { command: "/bin/umbel", args: ["mcp"], env: { A: 1 } },
            web: { type: "http", url: "http://x/mcp" },
          },
        },
      }),
      {},
    );
    const append = plan.entries.find((e) => e.kind === "file" && e.path.endsWith("append-system-prompt.md"));
    expect(append).toEqual({
      kind: "file",
      path: "/s/sessions/w/opencode/append-system-prompt.md",
      content: "APPENDED\n",
      mode: 0o600,
    });
    expect(configOf(plan)).toMatchObject({
      instructions: ["/s/sessions/w/opencode/append-system-prompt.md"],
      agent: { build: { prompt: "SYSTEM" }, plan: { prompt: "SYSTEM" } },
      mcp: {
        umbel: { type: "local", command: ["/bin/umbel", "mcp"], environment: { A: "1" }, enabled: true },
        web: { type: "remote", url: "http://x/mcp", enabled: true },
      },
    });
  });

  test("an MCP server of an unknown type is refused", () => {
    expect(planOpencodeMcp({ x: { type: "ws", url: "ws://x" } }).refused).toEqual([
      'MCP server "x": type ws is unknown',
    ]);
  });
});

describe("opencode prompts", () => {
  test.each([
    ["hello", "hello"],
    ["/review this", " /review this"],
    ["exit", "\u2060exit"],
    [" quit ", "\u2060 quit "],
    ["exit now", "exit now"],
    ["!ls", "!ls"],
    ["a\r\nb\u0007", "a\nb"],
  ])("%j → %j", (prompt, pasted) => {
    expect(prepareOpencodePrompt(prompt)).toBe(pasted);
  });
});
