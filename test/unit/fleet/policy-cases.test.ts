import { beforeAll, describe, expect, test } from "bun:test";
import { loadShellParser } from "../../../src/adapters/fleet/shell-parser.ts";
import { compilePolicy } from "../../../src/core/fleet/policy/compile.ts";
import { decideCall } from "../../../src/core/fleet/policy/decide.ts";
import type { ShellParse } from "../../../src/core/fleet/policy/shell-tree.ts";
import { HOOK_POLICY } from "../../../src/core/providers/hook-policy.ts";
import { ALLOWED, ASKED, CASE_RULES, DENIED } from "../../helpers/policy-cases.ts";

/** The policy probes at the pure decision: claude's and codex's events, the real shell parser. */
let parse: ShellParse;
beforeAll(async () => {
  parse = await loadShellParser();
});
const policy = compilePolicy(CASE_RULES, HOOK_POLICY, "claude")?.file;
const decide = (event: string, command: string) => {
  if (!policy) throw new Error("no policy");
  return decideCall(policy, HOOK_POLICY, { event, tool: "Bash", input: { command } }, parse);
};

describe("the probe table", () => {
  test("holds at least 50 allowed and 50 denied commands", () => {
    expect(ALLOWED.length).toBeGreaterThanOrEqual(50);
    expect(DENIED.length).toBeGreaterThanOrEqual(50);
  });

  test.each(ALLOWED)("allowed: %j by %s, and never denied", (command, rule) => {
    expect(decide("PermissionRequest", command)).toEqual({
      verdict: "allow",
      rule,
      reason: `allowed by umbel policy: ${rule}`,
    });
    expect(decide("PreToolUse", command)).toBeNull();
  });

  // Three columns always: bun reads a callback with more parameters than the row as a done callback.
  test.each(DENIED.map(([command, rule, uncertain]) => [command, rule, uncertain ?? ""] as const))(
    "denied: %j by %s %s",
    (command, rule, uncertain) => {
      const decision = decide("PreToolUse", command);
      expect(decision).toMatchObject({ verdict: "deny", rule });
      expect(decision?.why !== undefined).toBe(uncertain === "uncertain");
      expect(decide("PermissionRequest", command)).toBeNull();
    },
  );

  test.each(ASKED)("neither: %j reaches a person", (command) => {
    expect(decide("PreToolUse", command)).toBeNull();
    expect(decide("PermissionRequest", command)).toBeNull();
  });
});
