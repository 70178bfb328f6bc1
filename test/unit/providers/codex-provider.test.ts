// The codex provider's pure parts, against screens and hook payloads captured from the real
// codex-cli 0.171.0 (test/fixtures/codex/screens/, driven in tmux against the stub model).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { interpretCodexEvent, turnEndSignal } from "../../../src/core/providers/codex/events.ts";
import {
  CODEX_PERMISSION_MODES,
  codex,
  planCodexLaunch,
  prepareCodexPrompt,
  unsupportedLaunchOption,
} from "../../../src/core/providers/codex/provider.ts";
import {
  classifyCodexScreen,
  clearCodexComposerKeys,
  findCodexScreenError,
  readCodexComposer,
  stillCodexScreen,
} from "../../../src/core/providers/codex/screen.ts";
import type { LaunchFlag, LaunchOptions } from "../../../src/core/providers/launch-types.ts";
import type { HookEvent } from "../../../src/core/providers/types.ts";

const screen = (name: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "codex", "screens", `${name}.txt`), "utf8");

describe("codex screens (real captures)", () => {
  test.each([
    // The composer is drawn before startup is done (and before the trust dialog): not ready yet.
    ["startup-composer", { kind: "unknown" }],
    ["ready", { kind: "ready" }],
    ["after-turn", { kind: "ready" }],
    // While text streams there is no busy marker: the screen reads as ready (hooks decide).
    ["busy-streaming", { kind: "ready" }],
    ["busy-working", { kind: "busy" }],
    ["error-401", { kind: "ready" }],
    ["interrupted", { kind: "ready" }],
    ["composer-text", { kind: "ready" }],
    ["unknown-command", { kind: "ready" }],
    [
      "trust-dialog",
      {
        kind: "dialog",
        dialog: "trust",
        keys: ["Enter"],
        grantsTrust: true,
        // Saved in CODEX_HOME's config.toml, which is umbel's home (never the user's): not lasting.
        answer: "Trust and continue",
        folders: ["/home/u/project"],
      },
    ],
    [
      "hooks-review",
      {
        kind: "dialog",
        dialog: "hooks-review",
        keys: ["Down", "Down", "Enter"],
        answer: "Continue without trusting (hooks won't run)",
      },
    ],
    ["update", { kind: "dialog", dialog: "update", keys: ["Down", "Enter"], answer: "Skip" }],
    [
      "thread-locked",
      {
        kind: "dialog",
        dialog: "thread-locked",
        keys: [],
        fatal: "the codex session is open in another codex process; close that one first",
        retry: { keys: ["r"], forMs: 10_000 },
      },
    ],
  ])("%s", (name, expected) => {
    expect(classifyCodexScreen(screen(name))).toEqual(expected as never);
  });

  test("the sign-in screen is refused, with its text as evidence", () => {
    const state = classifyCodexScreen(screen("sign-in"));
    expect(state.kind).toBe("sign-in");
    expect(state.kind === "sign-in" && state.text).toContain("Sign in with ChatGPT");
  });

  test.each([
    [
      "resume of an unknown id",
      "ERROR: No saved session found with ID 01a2. Run `codex resume` without an ID to choose from existing sessions.\n",
    ],
    [
      "a bad flag",
      "error: unexpected argument '--full-auto' found\n\n  tip: to pass '--full-auto' as a value",
    ],
    [
      "a bad config",
      'Error loading config.toml: `wire_api = "chat"` is no longer supported.\nHow to fix: set `wire_api = "responses"`',
    ],
  ])("codex refusing to start (%s) has exited", (_name, text) => {
    expect(classifyCodexScreen(text).kind).toBe("exited");
  });

  test("an error: line in the conversation is not an exit", () => {
    const withOutput = screen("after-turn").replace("  Worked for 2s", "error: from a tool\n  Worked for 2s");
    expect(classifyCodexScreen(withOutput).kind).toBe("ready");
  });

  test("the approval prompt is input, from the tool line down to its footer", () => {
    expect(classifyCodexScreen(screen("approval"))).toEqual({
      kind: "input",
      text: [
        "• Running touch esc.txt",
        "  Would you like to run the following command?",
        "  Environment: local",
        "  Reason: stub escalation",
        "  $ touch esc.txt",
        "› 1. Yes, proceed (y)",
        "  2. Yes, and don't ask again for commands that start with `touch esc.txt` (p)",
        "  3. No, and tell Codex what to do differently (esc)",
        "  Press enter to confirm or esc to cancel",
      ].join("\n"),
    });
  });

  test("a highlight already on the wanted option is just Enter; one below it is Up", () => {
    const moved = screen("hooks-review")
      .replace("› 1. Review hooks", "  1. Review hooks")
      .replace("  3. Continue without", "› 3. Continue without");
    expect(classifyCodexScreen(moved)).toMatchObject({ keys: ["Enter"] });
    const trust = screen("trust-dialog")
      .replace("› 1. Trust", "  1. Trust")
      .replace("  2. Back", "› 2. Back");
    expect(classifyCodexScreen(trust)).toMatchObject({ keys: ["Up", "Enter"] });
  });

  test("a prompt in the history that looks like a menu option does not steer the dialog", () => {
    const withHistory = `› 1. do this first\n\n${screen("update")}`;
    expect(classifyCodexScreen(withHistory)).toMatchObject({ dialog: "update", keys: ["Down", "Enter"] });
  });

  test.each([
    ["ready", ""],
    ["busy-working", ""],
    ["composer-text", "one line"],
    ["composer-multiline", "first\nsecond\n  third"],
    ["unknown-command", "/notacmd hi"],
    ["pasted-content", "[Pasted Content 1200 chars]"],
    ["trust-dialog", null],
    ["startup-composer", null],
  ])("composer of %s", (name, text) => {
    expect(readCodexComposer(screen(name))).toBe(text);
  });

  test("a placeholder caught half drawn (a capture mid-redraw, seen in CI: `Ask Codex t`) is an empty composer", () => {
    const half = screen("ready").replace("Ask Codex to do anything", "Ask Codex t");
    expect(half).toContain("› Ask Codex t");
    expect(readCodexComposer(half)).toBe("");
  });

  test("clearing: End, kill and Backspace per line (C-u alone leaves the other lines)", () => {
    expect(clearCodexComposerKeys(screen("ready"))).toEqual(["C-e", "C-u", "BSpace"]);
    expect(clearCodexComposerKeys(screen("composer-multiline"))).toHaveLength(12);
  });

  test.each([
    [
      "error-401",
      "unexpected status 401 Unauthorized: stub error 401, url: http://127.0.0.1:40001/v1/responses, request id: req_stub_38",
    ],
    ["interrupted", null],
    ["after-turn", null],
    ["ready", null],
  ])("the error line of %s", (name, error) => {
    expect(findCodexScreenError(screen(name))).toBe(error);
  });

  test("the still screen ignores the spinner and its counter", () => {
    const a = screen("busy-working");
    const b = a.replace("• Working (0s", "◦ Working (12s");
    expect(stillCodexScreen(a)).toBe(stillCodexScreen(b));
    expect(stillCodexScreen(screen("ready"))).toBe(screen("ready"));
  });
});

describe("codex prompts", () => {
  test.each([
    ["plain", "Say hello", "Say hello"],
    ["a slash command becomes text", "/status", " /status"],
    ["a shell escape becomes text", "!rm -rf x", " !rm -rf x"],
    ["a path-like slash too (harmless)", "/a/b is a path", " /a/b is a path"],
    ["a trailing @mention gets a space", "explain @READ", "explain @READ "],
    ["a bare @ at the end", "mail me @", "mail me @ "],
    ["an @ in the middle is left alone", "ask @bob about it", "ask @bob about it"],
    ["CRLF and control characters", "a\r\nb\u001b[201~c", "a\nb[201~c"],
    ["tabs and unicode are kept", "\tünï ✓", "\tünï ✓"],
  ])("%s", (_name, prompt, pasted) => {
    expect(prepareCodexPrompt(prompt)).toBe(pasted);
    expect(codex.preparePrompt(prompt)).toBe(pasted);
  });
});

const base = {
  session_id: "01a2296f-8f00-7bd2-b7f1-7d320e4c35ac",
  transcript_path: "/home/u/.umbel/codex-home/sessions/2026/11/29/rollout-2026-11-29T22-31-46-01a2296f.jsonl",
  cwd: "/home/u/project",
  model: "stub-model",
  permission_mode: "default",
};
const TURN = "01a2296f-a8ea-73f1-9f93-8f9dde875a29";
const event = (name: string, payload: Record<string, unknown>, index = 0): HookEvent => ({
  index,
  name,
  payload: { ...base, hook_event_name: name, ...payload },
});

describe("codex hook payloads (real shapes)", () => {
  test.each([
    [
      "SessionStart",
      { source: "startup" },
      { kind: "session-start", sessionId: base.session_id, transcriptPath: base.transcript_path },
    ],
    [
      "UserPromptSubmit",
      { turn_id: TURN, prompt: "Say hello" },
      { kind: "submitted", promptId: TURN, prompt: "Say hello", human: true },
    ],
    [
      "Stop",
      { turn_id: TURN, stop_hook_active: false, last_assistant_message: "STUB-REPLY len=9" },
      { kind: "stop", promptId: TURN, message: "STUB-REPLY len=9", backgroundTasks: [] },
    ],
    ["Interrupt", { turn_id: TURN }, { kind: "interrupted", promptId: TURN }],
    [
      "PermissionRequest",
      {
        turn_id: TURN,
        tool_name: "Bash",
        tool_input: { command: "touch esc.txt", description: "stub escalation" },
      },
      { kind: "input", text: "Bash: touch esc.txt (stub escalation)", detail: "permission" },
    ],
    [
      "PermissionRequest",
      { tool_name: "apply_patch", tool_input: { command: "*** Begin Patch\n*** Add File: p.txt" } },
      { kind: "input", text: "apply_patch: *** Begin Patch\n*** Add File: p.txt", detail: "permission" },
    ],
    [
      "PreToolUse",
      { tool_name: "Bash", tool_input: { command: "touch esc.txt" }, tool_use_id: "call_1" },
      { kind: "progress" },
    ],
    ["PostToolUse", { tool_name: "Bash", tool_response: "", tool_use_id: "call_1" }, { kind: "progress" }],
    ["SessionEnd", { reason: "other" }, { kind: "session-end", reason: "other" }],
    ["PreCompact", {}, { kind: "ignore" }],
  ])("%s", (name, payload, signal) => {
    expect(interpretCodexEvent(event(name, payload))).toEqual(signal as never);
  });

  test("the contract's interpretEvent reports an interrupt as interrupted", () => {
    expect(codex.interpretEvent(event("Interrupt", { turn_id: TURN }))).toEqual({
      kind: "interrupted",
      promptId: TURN,
    });
  });

  test.each([
    [{ status: "running", turnId: TURN }, null],
    [
      { status: "complete", turnId: TURN, message: "hi" },
      { kind: "stop", promptId: TURN, message: "hi", backgroundTasks: [] },
    ],
    [
      { status: "failed", turnId: TURN, error: "boom", errorKind: "internal_server_error" },
      { kind: "failure", promptId: TURN, error: "internal_server_error", message: "boom" },
    ],
    [
      { status: "aborted", turnId: TURN, reason: "interrupted" },
      { kind: "interrupted", promptId: TURN },
    ],
  ])("transcript end %j as a signal", (end, signal) => {
    expect(turnEndSignal(end as never)).toEqual(signal as never);
  });
});

describe("codex launch", () => {
  const input = {
    bin: "codex",
    sessionId: "ignored",
    hookCommand: "sh hook.sh log",
    isRoot: true,
  };
  const home = { path: "/home/u/.umbel/codex-home", worker: "w1" };

  test.each([
    [{}, ["codex", "--no-daemon", "-p", "umbel-w1"]],
    [{ model: "gpt-5.5" }, ["codex", "--no-daemon", "-p", "umbel-w1", "-m", "gpt-5.5"]],
    [
      { unattended: true },
      ["codex", "--no-daemon", "-p", "umbel-w1", "--dangerously-bypass-approvals-and-sandbox"],
    ],
    [{ permissionMode: "dontAsk" }, ["codex", "--no-daemon", "-p", "umbel-w1", "-a", "never"]],
    [{ permissionMode: "plan" }, ["codex", "--no-daemon", "-p", "umbel-w1", "-s", "read-only"]],
    [{ permissionMode: "auto" }, ["codex", "--no-daemon", "-p", "umbel-w1", "--approve-for-me"]],
    [{ resumeSessionId: "01a2" }, ["codex", "resume", "01a2", "--no-daemon", "-p", "umbel-w1"]],
    // --continue: the newest thread of this cwd (measured: --last is filtered by cwd).
    [{ continueSession: true }, ["codex", "resume", "--last", "--no-daemon", "-p", "umbel-w1"]],
    [
      { resumeSessionId: "01a2", continueSession: true },
      ["codex", "resume", "01a2", "--no-daemon", "-p", "umbel-w1"],
    ],
    [
      { addDirs: ["/abs/one", "/abs/two words"], permissionMode: "plan" },
      [
        ..."codex --no-daemon -p umbel-w1 -s read-only".split(" "),
        ..."--add-dir /abs/one --add-dir".split(" "),
        "/abs/two words",
      ],
    ],
    // Non-interactive (umbel exec, -p): never asks, as codex exec 0.171.0 (approval: never); its
    // read-only sandbox unless a mode says otherwise.
    [{ nonInteractive: true }, [..."codex --no-daemon -p umbel-w1 -s read-only -a never".split(" ")]],
    [
      { nonInteractive: true, permissionMode: "default" },
      [..."codex --no-daemon -p umbel-w1 -a never".split(" ")],
    ],
    [
      { nonInteractive: true, permissionMode: "plan" },
      [..."codex --no-daemon -p umbel-w1 -s read-only -a never".split(" ")],
    ],
    [
      { nonInteractive: true, permissionMode: "dontAsk" },
      [..."codex --no-daemon -p umbel-w1 -a never".split(" ")],
    ],
    // codex exec --approve-for-me keeps on-request approvals: its guardian decides, never a person.
    [
      { nonInteractive: true, permissionMode: "auto" },
      [..."codex --no-daemon -p umbel-w1 --approve-for-me".split(" ")],
    ],
    [
      { nonInteractive: true, unattended: true },
      ["codex", "--no-daemon", "-p", "umbel-w1", "--dangerously-bypass-approvals-and-sandbox"],
    ],
    // The prompts and MCP servers live in the profile (codex/home.ts), never on argv.
    [
      { systemPrompt: "S", appendSystemPrompt: "A", mcpServers: { s: { command: "x" } } },
      ["codex", "--no-daemon", "-p", "umbel-w1"],
    ],
  ])("%j", (extra, argv) => {
    expect(planCodexLaunch({ ...input, ...extra } as never, home)).toEqual({
      argv,
      env: { CODEX_HOME: "/home/u/.umbel/codex-home" },
    });
  });

  test("without the home and worker it cannot be launched (refused at compile time, not at run time)", () => {
    const launch = { bin: "codex", sessionId: "s", hookCommand: "h", isRoot: false };
    // @ts-expect-error: a codex launch needs the laid-out home (its hooks live there).
    const withoutHome = () => codex.planLaunch(launch);
    expect(typeof withoutHome).toBe("function");
    expect(codex.home).toBeDefined();
  });

  test.each([
    [{ allowedTools: ["Bash(git:*)"] }, "codex has no per-tool allowlist"],
    [{ permissionMode: "acceptEdits" }, 'codex has no permission mode "acceptEdits"'],
    [{ permissionMode: "manual" }, 'codex has no permission mode "manual"'],
    [{ permissionMode: "bypassPermissions" }, null],
    [{ allowedTools: [] }, null],
    // 0.171.0's TUI exits at start with --add-dir in its read-only sandbox (codex exec takes it)
    [
      { nonInteractive: true, launchFlags: ["--add-dir"] },
      "codex's TUI refuses --add-dir in its read-only sandbox",
    ],
    [{ permissionMode: "plan", launchFlags: ["--add-dir"] }, "codex's TUI refuses --add-dir"],
    [{ nonInteractive: true, permissionMode: "default", launchFlags: ["--add-dir"] }, null],
    [{ launchFlags: ["--add-dir"] }, null],
  ])("launch options %j", (options, message) => {
    const result = unsupportedLaunchOption(options as never);
    if (message === null) expect(result).toBeNull();
    else expect(result).toContain(message);
  });

  test.each<[LaunchFlag[], string | null]>([
    [["--system-prompt", "--append-system-prompt", "--add-dir", "--mcp-config", "--continue"], null],
    [["--settings"], "--settings is not supported with --provider codex"],
    [["--disallowed-tools"], "--disallowed-tools is not supported with --provider codex"],
    [
      ["--system-prompt", "--disallowed-tools", "--settings"],
      "--disallowed-tools, --settings are not supported with --provider codex",
    ],
  ])("launch flags %j", (launchFlags, message) => {
    expect(codex.checkLaunchOptions?.({ launchFlags })).toBe(message);
  });

  test("MCP servers codex cannot run are a usage error naming codex", () => {
    const check = (options: LaunchOptions) => codex.checkLaunchOptions?.(options) ?? null;
    expect(check({ launchFlags: ["--mcp-config"], mcpServers: { s: { command: "x" } } })).toBeNull();
    expect(check({ launchFlags: ["--mcp-config"], mcpServers: { s: { type: "sse", url: "u" } } })).toBe(
      'MCP server "s": codex has no SSE transport (stdio and streamable HTTP only) (--mcp-config with --provider codex)',
    );
  });

  test("home.plan lays the launch flags into the worker's profile and leaves refused servers out", () => {
    const context = {
      stateRoot: "/s",
      sessionDir: "/s/sessions/w1",
      worker: "w1",
      cwd: "/w",
      hookCommand: "sh hook.sh",
      eventsLog: "/s/sessions/w1/events/hooks.jsonl",
      hostEnv: { HOME: "/home/u" },
      workerEnvNames: ["PATH"],
      launch: { systemPrompt: "S", mcpServers: { a: { command: "x" }, b: { type: "sse", url: "u" } } },
    };
    const plan = codex.home.plan(context, {});
    expect(plan.removeOnKill).toEqual([
      "/s/codex-home/umbel-w1.config.toml",
      "/s/codex-home/umbel-w1.instructions.md",
    ]);
    const profile = plan.entries.find((entry) => entry.path.endsWith("umbel-w1.config.toml"));
    const toml = Bun.TOML.parse(profile?.kind === "file" ? profile.content : "") as Record<string, unknown>;
    expect(toml).toMatchObject({
      model_instructions_file: "/s/codex-home/umbel-w1.instructions.md",
      mcp_servers: { a: { command: "x", env_vars: ["PATH", "UMBEL_HOME", "UMBEL_SESSION"] } },
    });
    // The SSE server is refused before launch (checkLaunchOptions); the profile never names it.
    expect(Object.keys(toml.mcp_servers as object)).toEqual(["a"]);
  });

  test("the provider data", () => {
    expect(codex).toMatchObject({
      id: "codex",
      binEnv: "UMBEL_CODEX_BIN",
      defaultBin: "codex",
      submitEvent: "UserPromptSubmit",
      explicitOnlyEnv: ["OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_ACCESS_TOKEN"],
    });
    expect(codex.envNames).not.toContain("CODEX_HOME");
    expect(codex.hookEvents).toEqual(
      expect.arrayContaining(["SessionStart", "UserPromptSubmit", "Stop", "Interrupt", "PermissionRequest"]),
    );
    expect(Object.keys(CODEX_PERMISSION_MODES)).toEqual([
      "default",
      "plan",
      "auto",
      "dontAsk",
      "bypassPermissions",
    ]);
  });
});
