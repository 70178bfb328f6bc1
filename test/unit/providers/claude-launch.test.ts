import { describe, expect, test } from "bun:test";
import { launchExtras, mergeSettings } from "../../../src/core/providers/claude/launch.ts";
import { claude } from "../../../src/core/providers/claude/provider.ts";
import { classifyScreen } from "../../../src/core/providers/claude/screen.ts";
import type { LaunchInput } from "../../../src/core/providers/launch-types.ts";

const base: LaunchInput = { bin: "claude", sessionId: "sid-1", hookCommand: "sh hook.sh log", isRoot: false };

describe("mergeSettings: one --settings carries umbel's hooks and the caller's settings", () => {
  const own = { hooks: { Stop: [{ matcher: "", hooks: [{ type: "command", command: "umbel" }] }] } };

  test("the caller's keys are kept, their hooks run beside umbel's (theirs first)", () => {
    const user = JSON.stringify({
      env: { FOO: "bar" },
      hooks: {
        Stop: [{ matcher: "", hooks: [{ type: "command", command: "mine" }] }],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }],
      },
    });
    expect(mergeSettings(own, user)).toEqual({
      env: { FOO: "bar" },
      hooks: {
        Stop: [
          { matcher: "", hooks: [{ type: "command", command: "mine" }] },
          { matcher: "", hooks: [{ type: "command", command: "umbel" }] },
        ],
        PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "guard" }] }],
      },
    });
  });

  test("umbel's own keys win; disableAllHooks would blind umbel and is dropped", () => {
    const withBypass = { ...own, skipDangerousModePermissionPrompt: true };
    const merged = mergeSettings(
      withBypass,
      '{"skipDangerousModePermissionPrompt":false,"disableAllHooks":true}',
    );
    expect(merged.skipDangerousModePermissionPrompt).toBe(true);
    expect("disableAllHooks" in merged).toBe(false);
    expect(mergeSettings(own, undefined)).toBe(own);
  });
});

describe("launch flags", () => {
  test("extras as --flag=value (a value may start with -); variadic ones repeated", () => {
    expect(
      launchExtras({
        ...base,
        disallowedTools: ["Bash", "Edit"],
        systemPrompt: "-terse",
        appendSystemPrompt: "also",
        addDirs: ["/a b", "/c"],
        mcpConfig: ['{"mcpServers":{}}'],
      }),
    ).toEqual([
      "--disallowedTools=Bash,Edit",
      "--system-prompt=-terse",
      "--append-system-prompt=also",
      "--add-dir=/a b",
      "--add-dir=/c",
      '--mcp-config={"mcpServers":{}}',
    ]);
    expect(launchExtras(base)).toEqual([]);
  });

  test.each<[Partial<LaunchInput>, string[], string[]]>([
    [{}, ["--session-id", "sid-1"], ["--resume", "--continue"]],
    [{ resumeSessionId: "old" }, ["--resume", "old"], ["--session-id", "--continue"]],
    [{ continueSession: true }, ["--continue"], ["--session-id", "--resume"]],
  ])("%j: how the conversation starts", (extra, present, absent) => {
    const { argv } = claude.planLaunch({ ...base, ...extra });
    for (const flag of present) expect(argv).toContain(flag);
    for (const flag of absent) expect(argv).not.toContain(flag);
  });

  test.each<[Partial<LaunchInput>, string | null]>([
    // claude's TUI starts in auto mode (a classifier approves calls); claude -p in default.
    [{}, null],
    [{ nonInteractive: true }, "default"],
    [{ nonInteractive: true, permissionMode: "acceptEdits" }, "acceptEdits"],
    [{ nonInteractive: true, permissionMode: "auto" }, "auto"],
    [{ nonInteractive: true, unattended: true }, "bypassPermissions"],
    [{ permissionMode: "plan" }, "plan"],
  ])("%j: --permission-mode %s", (extra, mode) => {
    const { argv } = claude.planLaunch({ ...base, ...extra });
    const at = argv.indexOf("--permission-mode");
    expect(at === -1 ? null : argv[at + 1]).toBe(mode);
  });

  test("non-interactive: no AskUserQuestion, as claude -p offers none (2.1.332's tool lists compared)", () => {
    expect(claude.planLaunch({ ...base, nonInteractive: true }).argv).toContain(
      "--disallowedTools=AskUserQuestion",
    );
    expect(claude.planLaunch({ ...base, nonInteractive: true, disallowedTools: ["Edit"] }).argv).toContain(
      "--disallowedTools=Edit,AskUserQuestion",
    );
    expect(claude.planLaunch(base).argv.join(" ")).not.toContain("--disallowedTools");
  });

  test("--settings merges the caller's into umbel's hook settings", () => {
    const { argv } = claude.planLaunch({ ...base, settings: '{"env":{"FOO":"bar"}}' });
    const settings = JSON.parse(argv[argv.indexOf("--settings") + 1] ?? "{}");
    expect(settings.env).toEqual({ FOO: "bar" });
    expect(Object.keys(settings.hooks)).toContain("Stop");
    expect(argv.filter((a) => a === "--settings")).toHaveLength(1);
  });
});

test("the --add-dir trust question is answered yes (it defaults to No, exit), for this session only", () => {
  const screen = `
 Adding a new directory:

 /tmp/explore

 This session hasn't worked here before. Is this a directory you created or one you trust?

 ❯ No, exit
   Yes, add it

 Enter to confirm · Esc to cancel
`;
  expect(classifyScreen(screen)).toEqual({
    kind: "dialog",
    dialog: "add-dir",
    keys: ["Down", "Enter"],
    grantsTrust: true,
    // "Your answer holds for this session." (2.1.332): nothing is recorded, so not lasting.
    answer: "Yes, add it",
    folders: ["/tmp/explore"],
  });
});

describe("trust for the session only (-p, a spare of the warm pool)", () => {
  test("CLAUDE_CODE_SANDBOXED=1: claude trusts its folder for this session and records nothing", () => {
    // Measured on 2.1.332: no trust dialog, hooks and project settings on, and .claude.json's
    // projects[<cwd>].hasTrustDialogAccepted stays false, as after `claude -p`.
    expect(claude.planLaunch({ ...base, sessionTrust: true }).env).toMatchObject({
      CLAUDE_CODE_SANDBOXED: "1",
    });
    expect(claude.planLaunch(base).env).not.toHaveProperty("CLAUDE_CODE_SANDBOXED");
  });

  test.each([
    [{ HOME: "/home/u" }, "/home/u/.claude.json"],
    [{ HOME: "/home/u", CLAUDE_CONFIG_DIR: "/cfg" }, "/cfg/.claude.json"],
  ])("where claude keeps a lasting answer: %j", (env, file) => {
    expect(claude.dialogRecord?.(env)).toBe(file);
  });
});
