import { describe, expect, test } from "bun:test";
import { compileNotify } from "../../src/core/notify.ts";
import {
  checkPolicy,
  compilePolicy,
  countDecisions,
  NON_INTERACTIVE_RULE,
  parseToolPattern,
  TOOL_PLACEHOLDER,
} from "../../src/core/policy.ts";
import { CLAUDE_POLICY } from "../../src/core/providers/claude/policy.ts";
import { claude } from "../../src/core/providers/claude/provider.ts";
import { GEMINI_POLICY } from "../../src/core/providers/gemini/policy.ts";
import { assessTurn } from "../../src/core/turn.ts";

type Parsed = ReturnType<typeof parseToolPattern>;

describe("tool patterns", () => {
  test.each([
    ["Read", {}, { tool: "Read", arg: { kind: "any" } }],
    ["Bash(*)", {}, { tool: "Bash", arg: { kind: "any" } }],
    ["Bash(git diff:*)", {}, { tool: "Bash", arg: { kind: "glob", globs: ["git diff", "git diff *"] } }],
    ["Bash(npm test)", {}, { tool: "Bash", arg: { kind: "glob", globs: ["npm test"] } }],
    ["Bash(git log*)", {}, { tool: "Bash", arg: { kind: "glob", globs: ["git log*"] } }],
    ["Edit(src/[a]?.ts)", {}, { tool: "Edit", arg: { kind: "glob", globs: ["src/\\[a\\]\\?.ts"] } }],
    [
      "run_shell_command(git)",
      { exactIsPrefix: true },
      { tool: "run_shell_command", arg: { kind: "glob", globs: ["git", "git *"] } },
    ],
  ] as [string, { exactIsPrefix?: boolean }, Parsed][])("%s", (pattern, spec, parsed) => {
    expect(parseToolPattern(pattern, spec)).toEqual(parsed);
  });

  test.each(["Bash(unclosed", "(x)", "Bash(a\tb)", "two words"])(
    "%j is refused at spawn, naming the flag",
    (pattern) => {
      expect(checkPolicy({ allow: [pattern], deny: [] }, {})).toStartWith(
        `--allow ${JSON.stringify(pattern)}: `,
      );
    },
  );
});

describe("policy.tsv", () => {
  test("deny rules first, at the CLI's deny event; allow at its permission request, with the CLI's answer", () => {
    const lines = compilePolicy({ allow: ["Read"], deny: ["Bash(rm:*)"] }, CLAUDE_POLICY)
      .trimEnd()
      .split("\n");
    expect(lines.map((l) => l.split("\t").slice(0, 5))).toEqual([
      ["deny", "PreToolUse", "Bash", "cmd", "rm"],
      ["deny", "PreToolUse", "Bash", "cmd", "rm *"],
      ["allow", "PermissionRequest", "Read", "any", "*"],
    ]);
    const [, , , , , marker, answer] = lines[2]?.split("\t") ?? [];
    expect(JSON.parse(marker ?? "")).toEqual({ decision: "allow", rule: "Read" });
    expect(JSON.parse(answer ?? "")).toEqual({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
  });

  test("gemini: allow rules are gemini's own allowlist, so only deny rules are in the file", () => {
    const text = compilePolicy(
      { allow: ["run_shell_command(git)"], deny: ["run_shell_command(rm)"] },
      GEMINI_POLICY,
    );
    expect(
      text
        .split("\n")
        .filter(Boolean)
        .map((l) => l.split("\t")[0]),
    ).toEqual(["deny", "deny"]);
    expect(compilePolicy({ allow: ["run_shell_command(git)"], deny: [] }, GEMINI_POLICY)).toBe("");
  });
});

describe("policy.tsv for a non-interactive worker (umbel -p)", () => {
  test("after every --allow rule, whatever would still ask a person is denied with claude -p's words", () => {
    const text = compilePolicy({ allow: ["Read"], deny: ["Bash(rm:*)"] }, CLAUDE_POLICY, { denyAsks: true });
    const lines = text.trimEnd().split("\n");
    expect(lines.map((l) => l.split("\t").slice(0, 5))).toEqual([
      ["deny", "PreToolUse", "Bash", "cmd", "rm"],
      ["deny", "PreToolUse", "Bash", "cmd", "rm *"],
      ["allow", "PermissionRequest", "Read", "any", "*"],
      ["deny", "PermissionRequest", "*", "any", "*"],
    ]);
    const [, , , , , marker, answer] = lines[3]?.split("\t") ?? [];
    expect(JSON.parse(marker ?? "")).toEqual({ decision: "deny", rule: NON_INTERACTIVE_RULE });
    expect(JSON.parse(answer ?? "")).toEqual({
      hookSpecificOutput: {
        hookEventName: "PermissionRequest",
        decision: {
          behavior: "deny",
          message: `Claude requested permissions to use ${TOOL_PLACEHOLDER}, but you haven't granted it yet.`,
        },
      },
    });
  });

  test("alone, it is the whole file; a CLI with no such event (gemini) gets none", () => {
    expect(
      compilePolicy({ allow: [], deny: [] }, CLAUDE_POLICY, { denyAsks: true }).split("\n"),
    ).toHaveLength(2);
    expect(compilePolicy({ allow: [], deny: [] }, GEMINI_POLICY, { denyAsks: true })).toBe("");
    expect(compilePolicy({ allow: [], deny: [] }, CLAUDE_POLICY)).toBe("");
  });
});

describe("a decision in the events log", () => {
  const ev = (index: number, name: string, extra: object = {}) => ({
    index,
    name,
    payload: { hook_event_name: name, ...extra },
  });

  test("a permission request the policy answered is never input; one it did not is", () => {
    const events = [
      ev(0, "UserPromptSubmit", { prompt_id: "p", prompt: "x" }),
      ev(1, "PermissionRequest", {
        tool_name: "Bash",
        tool_input: { command: "git diff" },
        umbel_policy: { decision: "allow", rule: "Bash(git diff:*)" },
      }),
    ];
    expect(assessTurn(claude, events, 0).status).toBe("running");
    const asked = [
      ...events,
      ev(2, "PermissionRequest", { tool_name: "Bash", tool_input: { command: "ls" } }),
    ];
    expect(assessTurn(claude, asked, 0)).toMatchObject({ status: "input", text: "Bash: ls" });
  });

  test("status counts the automatic decisions", () => {
    const events = [
      ev(0, "PreToolUse", { umbel_policy: { decision: "deny", rule: "Bash(rm:*)" } }),
      ev(1, "PermissionRequest", { umbel_policy: { decision: "allow", rule: "Read" } }),
      ev(2, "PermissionRequest", { umbel_policy: { decision: "allow", rule: "Read" } }),
      ev(3, "PermissionRequest", { umbel_policy: "forged" }),
    ];
    expect(countDecisions(events)).toEqual({ allowed: 2, denied: 1 });
  });
});

describe("notify.tsv", () => {
  test("each rule: the event, the outcome and its exit code, what the line must and must not hold (- for none)", () => {
    expect(
      compileNotify(claude.notifyRules ?? [])
        .split("\n")
        .filter(Boolean),
    ).toEqual([
      'Stop\tstop\t0\t-\t"status":"running"',
      "StopFailure\tprovider-error\t122\t-\t-",
      'PermissionRequest\tinput\t126\t-\t"umbel_policy"',
      'Notification\tinput\t126\t"notification_type":"(agent_needs_input|elicitation_dialog)"\t-',
    ]);
  });
});
