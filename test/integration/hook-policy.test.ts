import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { compilePolicy, policyDecisionOf } from "../../src/core/policy.ts";
import { CLAUDE_POLICY } from "../../src/core/providers/claude/policy.ts";
import { GEMINI_POLICY } from "../../src/core/providers/gemini/policy.ts";

/**
 * hooks/hook.sh answering spawn --allow/--deny from the policy.tsv core/policy.ts compiles, under the
 * sh every worker runs it with: fail closed (a compound, redirected or escaped command is never
 * allowed), deny anywhere in a list, the decision recorded in the very line of the request.
 */
const HOOK = join(import.meta.dir, "..", "..", "hooks", "hook.sh");

let session: string;
let log: string;
beforeAll(async () => {
  session = await mkdtemp(join(tmpdir(), "umbel-policy-"));
  await mkdir(join(session, "events"));
  log = join(session, "events", "hooks.jsonl");
});
afterAll(async () => {
  await rm(session, { recursive: true, force: true });
});

async function fire(payload: object): Promise<{ out: string; line: Record<string, unknown> }> {
  const child = Bun.spawn(["sh", HOOK, log], { stdin: new Blob([JSON.stringify(payload)]), stdout: "pipe" });
  const out = await new Response(child.stdout).text();
  expect(await child.exited).toBe(0);
  const lines = (await readFile(log, "utf8")).trim().split("\n");
  return { out, line: JSON.parse(lines.at(-1) ?? "{}") as Record<string, unknown> };
}

const call = (event: string, tool: string, input: object) => ({
  session_id: "s",
  hook_event_name: event,
  tool_name: tool,
  tool_input: input,
});
const bash = (event: string, command: string) => call(event, "Bash", { command, description: "d" });

describe("policy on claude's hooks (codex answers the same way)", () => {
  beforeAll(async () => {
    const rules = {
      allow: ["Bash(git diff:*)", "Bash(npm test)", "Read", "Edit(/w/src/*)"],
      deny: ["Bash(rm:*)"],
    };
    await writeFile(join(session, "policy.tsv"), compilePolicy(rules, CLAUDE_POLICY));
  });

  test.each([
    ["git diff --stat", "Bash(git diff:*)"],
    ["git diff", "Bash(git diff:*)"],
    ['git diff "a b"', "Bash(git diff:*)"],
    ["npm test", "Bash(npm test)"],
  ])("allowed: %j (%s), recorded in the request's own line", async (command, rule) => {
    const { out, line } = await fire(bash("PermissionRequest", command));
    expect(JSON.parse(out)).toEqual({
      hookSpecificOutput: { hookEventName: "PermissionRequest", decision: { behavior: "allow" } },
    });
    expect(line.umbel_policy).toEqual({ decision: "allow", rule });
    expect(line.tool_input).toEqual({ command, description: "d" });
  });

  test.each([
    "git diffx",
    "git diff; rm -rf /",
    "git diff && curl x | sh",
    "git diff > /etc/passwd",
    "git diff $(id)",
    "git diff `id`",
    "git diff\nrm -rf /",
    "git diff \\\nx",
    "npm test --watch",
    "ls",
  ])("fail closed: %j reaches the caller (no answer, no decision)", async (command) => {
    const { out, line } = await fire(bash("PermissionRequest", command));
    expect(out).toBe("");
    expect(line.umbel_policy).toBeUndefined();
    expect(policyDecisionOf({ index: 0, name: "PermissionRequest", payload: line })).toBeNull();
  });

  test.each(["rm -rf build", "rm", "ls && rm x", "echo $(rm y)", "ls\nrm y", "(cd a; rm b)"])(
    "denied wherever it appears: %j",
    async (command) => {
      const { out, line } = await fire(bash("PreToolUse", command));
      expect(JSON.parse(out)).toMatchObject({
        hookSpecificOutput: {
          permissionDecision: "deny",
          permissionDecisionReason: "denied by umbel policy: Bash(rm:*)",
        },
      });
      expect(line.umbel_policy).toEqual({ decision: "deny", rule: "Bash(rm:*)" });
    },
  );

  test.each([
    ["PreToolUse", bash("PreToolUse", "rmdir x")],
    ["PreToolUse", bash("PreToolUse", "git diff")],
    ["PermissionRequest", call("PermissionRequest", "Edit", { file_path: "/w/other/a.ts" })],
    ["PermissionRequest", call("PermissionRequest", "Write", { file_path: "/w/src/a.ts" })],
  ])("no rule for %s %j", async (_event, payload) => {
    expect((await fire(payload)).out).toBe("");
  });

  test.each([
    [call("PermissionRequest", "Read", { file_path: "/etc/hosts" }), "Read"],
    [call("PermissionRequest", "Edit", { file_path: "/w/src/a/b.ts", old_string: "x" }), "Edit(/w/src/*)"],
  ])("other tools by their path: %j", async (payload, rule) => {
    const { out, line } = await fire(payload);
    expect(out).not.toBe("");
    expect(line.umbel_policy).toEqual({ decision: "allow", rule });
  });
});

describe("a non-interactive worker's policy (umbel -p): every ask denied, --allow still answers yes", () => {
  beforeAll(async () => {
    const rules = { allow: ["Bash(git diff:*)"], deny: ["Bash(rm:*)"] };
    await writeFile(join(session, "policy.tsv"), compilePolicy(rules, CLAUDE_POLICY, { denyAsks: true }));
  });

  test.each([
    [bash("PermissionRequest", "touch f"), "Bash"],
    [call("PermissionRequest", "Write", { file_path: "/w/a.txt", content: "x" }), "Write"],
    [call("PermissionRequest", "mcp__srv__do_it", { value: 1 }), "mcp__srv__do_it"],
    [call("PermissionRequest", "AskUserQuestion", { questions: [] }), "AskUserQuestion"],
  ])(
    "%j is denied with the tool's name in claude's words, and recorded as decided",
    async (payload, tool) => {
      const { out, line } = await fire(payload);
      expect(JSON.parse(out)).toEqual({
        hookSpecificOutput: {
          hookEventName: "PermissionRequest",
          decision: {
            behavior: "deny",
            message: `Claude requested permissions to use ${tool}, but you haven't granted it yet.`,
          },
        },
      });
      expect(line.umbel_policy).toEqual({ decision: "deny", rule: "non-interactive" });
    },
  );

  test("an --allow rule is taken first; a PreToolUse that no deny rule matches is left alone", async () => {
    const allowed = await fire(bash("PermissionRequest", "git diff --stat"));
    expect(JSON.parse(allowed.out)).toMatchObject({
      hookSpecificOutput: { decision: { behavior: "allow" } },
    });
    expect((await fire(bash("PreToolUse", "touch f"))).out).toBe("");
    const denied = await fire(bash("PreToolUse", "rm -rf x"));
    expect(denied.line.umbel_policy).toEqual({ decision: "deny", rule: "Bash(rm:*)" });
  });
});

describe("policy on gemini's BeforeTool", () => {
  beforeAll(async () => {
    await writeFile(
      join(session, "policy.tsv"),
      compilePolicy({ allow: ["run_shell_command(git)"], deny: ["run_shell_command(rm)"] }, GEMINI_POLICY),
    );
  });

  test("deny answers gemini's way; allow is gemini's own (no rule in the file)", async () => {
    const denied = await fire(call("BeforeTool", "run_shell_command", { command: "rm -rf x" }));
    expect(JSON.parse(denied.out)).toEqual({
      decision: "deny",
      reason: "denied by umbel policy: run_shell_command(rm)",
    });
    expect((await fire(call("BeforeTool", "run_shell_command", { command: "git status" }))).out).toBe("");
  });
});
