import { beforeAll, describe, expect, test } from "bun:test";
import { loadShellParser } from "../../../src/adapters/fleet/shell-parser.ts";
import { compileNotify } from "../../../src/core/fleet/notify.ts";
import {
  checkPolicy,
  compileHookLines,
  compilePolicy,
  countDecisions,
  FAILED_CHECK_RULE,
  NON_INTERACTIVE_RULE,
  parseToolPattern,
} from "../../../src/core/fleet/policy/compile.ts";
import { decideCall, toolCallOf } from "../../../src/core/fleet/policy/decide.ts";
import { refusedOption } from "../../../src/core/fleet/policy/file-options.ts";
import { type PolicyFile, TOOL_PLACEHOLDER } from "../../../src/core/fleet/policy/rules.ts";
import type { ShellParse } from "../../../src/core/fleet/policy/shell-tree.ts";
import { claude } from "../../../src/core/providers/claude/provider.ts";
import { GEMINI_POLICY } from "../../../src/core/providers/gemini/policy.ts";
import { CLAUDE_POLICY, HOOK_POLICY } from "../../../src/core/providers/hook-policy.ts";
import { SNAKE_HOOK_WIRE } from "../../../src/core/providers/hook-wire.ts";
import { assessTurn } from "../../../src/core/wait/turn.ts";

type Parsed = ReturnType<typeof parseToolPattern>;

let parse: ShellParse;
beforeAll(async () => {
  parse = await loadShellParser();
});

describe("tool patterns", () => {
  test.each([
    ["Read", { tool: "Read", arg: { kind: "any" } }],
    ["Bash(*)", { tool: "Bash", arg: { kind: "any" } }],
    ["Bash(git diff:*)", { tool: "Bash", arg: { kind: "prefix", text: "git diff" } }],
    ["Bash(npm test)", { tool: "Bash", arg: { kind: "exact", text: "npm test" } }],
    ["Bash(git log*)", { tool: "Bash", arg: { kind: "glob", text: "git log*" } }],
    ["Edit(src/[a]?.ts)", { tool: "Edit", arg: { kind: "exact", text: "src/[a]?.ts" } }],
  ] as [string, Parsed][])("%s", (pattern, parsed) => {
    expect(parseToolPattern(pattern)).toEqual(parsed);
  });

  test.each(["Bash(unclosed", "(x)", "Bash(a\tb)", "two words", "Bash(git*:*)"])(
    "%j is refused at spawn, naming the flag",
    (pattern) => {
      expect(checkPolicy({ allow: [pattern], deny: [] })).toStartWith(`--allow ${JSON.stringify(pattern)}: `);
    },
  );
});

describe("policy.json and policy.tsv", () => {
  test("deny rules first, at the CLI's deny event; allow at its permission request; the hook's fallback per event", () => {
    const compiled = compilePolicy({ allow: ["Read"], deny: ["Bash(rm:*)"] }, HOOK_POLICY, "claude");
    expect(compiled?.file).toEqual({
      provider: "claude",
      rules: [
        {
          verdict: "deny",
          event: "PreToolUse",
          tool: "Bash",
          arg: { kind: "prefix", text: "rm" },
          rule: "Bash(rm:*)",
        },
        { verdict: "allow", event: "PermissionRequest", tool: "Read", arg: { kind: "any" }, rule: "Read" },
      ],
    });
    const [pre, permission] = (compiled?.tsv ?? "")
      .trimEnd()
      .split("\n")
      .map((l) => l.split("\t"));
    // Where a deny rule answers, umbel's failure denies; where only allow rules do, a person is asked.
    expect(pre?.slice(0, 2)).toEqual(["PreToolUse", '"(Bash)"']);
    expect(JSON.parse(pre?.[2] ?? "")).toMatchObject({
      hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "deny" },
    });
    expect(JSON.parse(pre?.[3] ?? "")).toEqual({ decision: "deny", rule: FAILED_CHECK_RULE });
    expect(permission).toEqual(["PermissionRequest", '"(Read)"', "-", "-"]);
  });

  test("gemini: allow rules are gemini's own allowlist; umbel asks first where it would not allow", () => {
    const compiled = compilePolicy(
      { allow: ["run_shell_command(git)"], deny: ["run_shell_command(rm)"] },
      GEMINI_POLICY,
      "gemini",
    );
    expect(compiled?.file.rules.map((r) => [r.verdict, r.event])).toEqual([
      ["deny", "BeforeTool"],
      ["ask", "BeforeTool"],
    ]);
    const only = compilePolicy({ allow: ["run_shell_command(git diff)"], deny: [] }, GEMINI_POLICY, "gemini");
    const [, , fallback] = (only?.tsv ?? "").split("\t");
    expect(JSON.parse(fallback ?? "")).toEqual({
      decision: "ask",
      reason: "asked by umbel policy: umbel could not check this call",
    });
    const call = (command: string) => ({
      event: "BeforeTool",
      tool: "run_shell_command",
      input: { command },
    });
    const file = only?.file as PolicyFile;
    expect(decideCall(file, GEMINI_POLICY, call("git diff --output=x"), parse)).toEqual({
      verdict: "ask",
      rule: "run_shell_command(git diff)",
      reason: "asked by umbel policy: run_shell_command(git diff) does not allow this call",
    });
    expect(decideCall(file, GEMINI_POLICY, call("git diff --stat"), parse)).toBeNull();
    expect(decideCall(file, GEMINI_POLICY, { ...call("x"), tool: "read_file" }, parse)).toBeNull();
  });

  test("a catch-all deny with its own message (a rule -p may add: whatever would ask a person)", () => {
    const file: PolicyFile = {
      provider: "claude",
      rules: [
        {
          verdict: "deny",
          event: "PermissionRequest",
          tool: "*",
          arg: { kind: "any" },
          rule: "*",
          message: "no person here",
        },
      ],
    };
    const call = { event: "PermissionRequest", tool: "mcp__x__y", input: { a: 1 } };
    expect(decideCall(file, HOOK_POLICY, call, null)).toEqual({
      verdict: "deny",
      rule: "*",
      reason: "no person here",
    });
    expect(compileHookLines(file, HOOK_POLICY).split("\t").slice(0, 2)).toEqual(["PermissionRequest", "."]);
  });
});

describe("deciding from the CLI's own fields", () => {
  const rules = {
    allow: ["Read", "Edit(/w/src/*)", "Bash(git diff:*)"],
    deny: ["Bash(rm:*)", "Write(/etc/*)"],
  };
  const file = compilePolicy(rules, HOOK_POLICY, "claude")?.file as PolicyFile;
  const decide = (payload: Record<string, unknown>) =>
    decideCall(file, HOOK_POLICY, toolCallOf(payload, SNAKE_HOOK_WIRE), parse);

  test("an MCP tool's arguments naming tool_name Read are the tool's input, never its name", () => {
    const spoof = {
      hook_event_name: "PermissionRequest",
      tool_name: "mcp__evil__write",
      tool_input: { tool_name: "Read", file_path: "/tmp/x", command: "git diff" },
    };
    expect(decide(spoof)).toBeNull();
    const late = {
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: "rm -rf v", hook_event_name: "Stop", tool_name: "Read" },
    };
    expect(decide(late)).toMatchObject({ verdict: "deny", rule: "Bash(rm:*)" });
  });

  test("JSON escapes are the JSON parser's: a \\t in the payload is a tab", () => {
    const payload = JSON.parse(
      '{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm\\t-rf v"}}',
    );
    expect(decide(payload)).toMatchObject({ verdict: "deny" });
  });

  test.each([
    [{ file_path: "/w/src/a/b.ts" }, "allow" as const],
    [{ file_path: "/w/src/../../etc/passwd" }, null],
    [{ file_path: "/w/other.ts" }, null],
  ] as const)("a path rule matches the parsed top-level path: %j", (input, verdict) => {
    expect(
      decide({ hook_event_name: "PermissionRequest", tool_name: "Edit", tool_input: input })?.verdict ?? null,
    ).toBe(verdict);
  });

  test("a denied path is denied as written and resolved; a call with no path under a path rule is denied", () => {
    const write = (input: object) =>
      decide({ hook_event_name: "PreToolUse", tool_name: "Write", tool_input: input });
    expect(write({ file_path: "/tmp/../etc/x" })).toMatchObject({ verdict: "deny", rule: "Write(/etc/*)" });
    expect(write({ content: "x" })).toMatchObject({
      verdict: "deny",
      why: "the call has no argument to match",
    });
    expect(write({ file_path: "/tmp/x" })).toBeNull();
  });

  test("an uncertain denial says why, in the reason the CLI shows", () => {
    const decision = decide({
      hook_event_name: "PreToolUse",
      tool_name: "Bash",
      tool_input: { command: 'eval "$x"' },
    });
    expect(decision?.reason).toBe(
      "denied by umbel policy: Bash(rm:*) (umbel cannot tell what the call runs: a script that is not a literal)",
    );
  });
});

describe("options that write or read a file the rule does not name", () => {
  test.each([
    [["git", "diff", "--output=x"], 2, "--output=x"],
    [["git", "diff", "--no-index", "a", "b"], 2, "--no-index"],
    [["git", "format-patch", "-o", "out"], 2, "-o"],
    [["git", "-C", "/etc", "diff"], 1, "-C"],
    [["git", "--no-pager", "diff"], 1, null],
    [["git", "diff", "-C", "--stat"], 2, null],
    [["sort", "-ro", "x"], 1, "-ro"],
    [["sed", "-i", "s/a/b/", "f"], 1, "-i"],
    [["find", ".", "-delete"], 1, "-delete"],
    [["mytool", "--log-file=x"], 1, "--log-file=x"],
    [["mytool", "-o", "x"], 1, "-o"],
    [["mytool", "-v", "--", "-o"], 1, null],
    [["ls", "-o"], 1, null],
  ] as const)("%j from word %d: %s", (words, from, refused) => {
    expect(refusedOption(words, from)).toBe(refused);
  });
});

describe("policy.json and policy.tsv for a non-interactive worker (umbel -p)", () => {
  const denial = (tool: string) => ({
    hookSpecificOutput: {
      hookEventName: "PermissionRequest",
      decision: {
        behavior: "deny",
        message: `Claude requested permissions to use ${tool}, but you haven't granted it yet.`,
      },
    },
  });

  test("after every --allow rule, whatever would still ask a person is denied with claude -p's words", () => {
    const compiled = compilePolicy({ allow: ["Read"], deny: ["Bash(rm:*)"] }, CLAUDE_POLICY, "claude", {
      denyAsks: true,
    });
    const rules = compiled?.file.rules ?? [];
    expect(rules.map((r) => [r.verdict, r.event, r.tool, r.arg.kind])).toEqual([
      ["deny", "PreToolUse", "Bash", "prefix"],
      ["allow", "PermissionRequest", "Read", "any"],
      ["deny", "PermissionRequest", "*", "any"],
    ]);
    expect(rules[2]).toEqual({
      verdict: "deny",
      event: "PermissionRequest",
      tool: "*",
      arg: { kind: "any" },
      rule: NON_INTERACTIVE_RULE,
      message: `Claude requested permissions to use ${TOOL_PLACEHOLDER}, but you haven't granted it yet.`,
      last: true,
    });
    const file = compiled?.file as PolicyFile;
    const decide = (tool: string, input: Record<string, unknown>) =>
      decideCall(file, CLAUDE_POLICY, { event: "PermissionRequest", tool, input }, null);
    // The --allow rule still answers yes; the rest is denied, the tool's name put in by umbel.
    expect(decide("Read", { file_path: "/w/a" })?.verdict).toBe("allow");
    expect(decide("Write", { file_path: "/w/a", content: "x" })).toEqual({
      verdict: "deny",
      rule: NON_INTERACTIVE_RULE,
      reason: denial("Write").hookSpecificOutput.decision.message,
    });
    expect(
      CLAUDE_POLICY.answer("deny", "PermissionRequest", decide("mcp__srv__x", {})?.reason ?? ""),
    ).toEqual(denial("mcp__srv__x"));
    // A PreToolUse is still only the deny rules'.
    expect(
      decideCall(file, CLAUDE_POLICY, { event: "PreToolUse", tool: "Write", input: {} }, null),
    ).toBeNull();
    // Where umbel's check cannot run at PermissionRequest, the hook denies (nobody is there to ask).
    const [pre, permission] = (compiled?.tsv ?? "")
      .trimEnd()
      .split("\n")
      .map((l) => l.split("\t"));
    expect(pre?.slice(0, 2)).toEqual(["PreToolUse", '"(Bash)"']);
    expect(permission?.slice(0, 2)).toEqual(["PermissionRequest", "."]);
    expect(JSON.parse(permission?.[2] ?? "")).toMatchObject({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "deny" } },
    });
    expect(JSON.parse(permission?.[3] ?? "")).toEqual({ decision: "deny", rule: FAILED_CHECK_RULE });
  });

  test("a last rule decides after every other rule, wherever it stands in the file", () => {
    const file: PolicyFile = {
      provider: "claude",
      rules: [
        {
          verdict: "deny",
          event: "PermissionRequest",
          tool: "*",
          arg: { kind: "any" },
          rule: "*",
          last: true,
        },
        { verdict: "allow", event: "PermissionRequest", tool: "Read", arg: { kind: "any" }, rule: "Read" },
      ],
    };
    const call = (tool: string | null) => ({ event: "PermissionRequest", tool, input: {} });
    expect(decideCall(file, CLAUDE_POLICY, call("Read"), null)?.verdict).toBe("allow");
    expect(decideCall(file, CLAUDE_POLICY, call("Edit"), null)?.verdict).toBe("deny");
    // A payload with no tool name is denied too, in words that still read.
    expect(decideCall(file, CLAUDE_POLICY, call(null), null)?.reason).toBe("denied by umbel policy: *");
  });

  test("alone, it is the whole policy; a CLI with no such event (gemini) or made non-interactive by its flags (codex) gets none", () => {
    const alone = compilePolicy({ allow: [], deny: [] }, CLAUDE_POLICY, "claude", { denyAsks: true });
    expect(alone?.file.rules).toHaveLength(1);
    expect(alone?.tsv.split("\n")).toHaveLength(2);
    expect(compilePolicy({ allow: [], deny: [] }, GEMINI_POLICY, "gemini", { denyAsks: true })).toBeNull();
    expect(compilePolicy({ allow: [], deny: [] }, HOOK_POLICY, "codex", { denyAsks: true })).toBeNull();
    expect(compilePolicy({ allow: [], deny: [] }, CLAUDE_POLICY, "claude")).toBeNull();
    expect(claude.policy).toBe(CLAUDE_POLICY);
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
  // The line's own members, one whole value each, from its start (hook.sh's grep -E; core/fleet/notify.ts).
  const STRING = '"([^"\\\\]|\\\\.)*"';
  const FLAT = `\\{([^{}"]|${STRING})*\\}`;
  const TOP_LEVEL = `^\\{(${STRING}:(${STRING}|[-+.0-9A-Za-z]+|${FLAT}|\\[([^][{}"]|${STRING}|${FLAT})*\\]),)*`;
  test("each rule: the event, the outcome and its exit code, what the line must and must not hold (- for none), anchored at the line's start", () => {
    expect(
      compileNotify(claude.notifyRules ?? [])
        .split("\n")
        .filter(Boolean),
    ).toEqual([
      'Stop\tstop\t0\t-\t"status":"running"',
      "StopFailure\tprovider-error\t122\t-\t-",
      'PermissionRequest\tinput\t126\t-\t^\\{"umbel_policy":',
      `Notification\tinput\t126\t${TOP_LEVEL}"notification_type":"(agent_needs_input|elicitation_dialog)"\t-`,
    ]);
  });
});

describe("which payloads start umbel", () => {
  test("the tools' regex names each rule's tool as a JSON string, its dots and dashes literal", () => {
    const compiled = compilePolicy({ allow: ["mcp__a.b__c-d"], deny: [] }, HOOK_POLICY, "claude");
    const regex = compiled?.tsv.split("\t")[1] ?? "";
    expect(regex).toBe('"(mcp__a\\.b__c-d)"');
    const matches = (line: string) =>
      Bun.spawnSync(["grep", "-q", "-E", "-e", regex], { stdin: new Blob([line]) }).exitCode === 0;
    expect(matches('{"tool_name":"mcp__a.b__c-d"}')).toBe(true);
    expect(matches('{"tool_name":"mcp__aXb__c-d"}')).toBe(false);
  });
});
