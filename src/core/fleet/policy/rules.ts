import { z } from "zod";
import { ProviderId } from "../../schemas.ts";

/**
 * What a rule matches in a call's main argument: anything; or a text as the pattern gave it — a
 * prefix of whole words (`Bash(git diff:*)`), exactly it (`Bash(npm test)`), or a glob where `*` is
 * any text (`Edit(/w/src/*)`).
 */
export const ArgPattern = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("any") }),
  z.object({
    kind: z.enum(["prefix", "exact", "glob"]),
    text: z.string().describe("The pattern's text between the parentheses, without a trailing :*"),
  }),
]);
export type ArgPattern = z.infer<typeof ArgPattern>;

/** In a rule's message, the call's tool name is put where this stands (`Claude requested permissions to use @TOOL@, …`). */
export const TOOL_PLACEHOLDER = "@TOOL@";

/** One compiled --allow / --deny rule, answered at one hook event of the worker's CLI. */
export const PolicyRule = z.object({
  verdict: z
    .enum(["allow", "deny", "ask"])
    .describe("What the rule answers (ask: a call of its tool umbel would not allow is asked first)"),
  event: z
    .string()
    .describe("The hook event it answers (the CLI's own name: PreToolUse, PermissionRequest, BeforeTool)"),
  tool: z.string().describe("The tool's name as the CLI reports it; * for every tool"),
  arg: ArgPattern.describe("What the call's main argument must match"),
  rule: z.string().describe("The rule as given (--allow / --deny), recorded with each decision"),
  message: z
    .string()
    .optional()
    .describe(
      "The reason the CLI is given (default: `denied by umbel policy: RULE`); @TOOL@ in it is the call's tool",
    ),
  last: z
    .boolean()
    .optional()
    .describe(
      "Decides only a call no other rule at its event decided (-p's denial of whatever would ask a person)",
    ),
});
export type PolicyRule = z.infer<typeof PolicyRule>;

/** `policy.json` in a worker's session dir: what umbel's hidden `__policy` face decides from. */
export const PolicyFile = z.object({
  provider: ProviderId.describe("Whose hook payloads and answers these are"),
  rules: z.array(PolicyRule).describe("Deny rules first; the first rule that decides wins"),
});
export type PolicyFile = z.infer<typeof PolicyFile>;
