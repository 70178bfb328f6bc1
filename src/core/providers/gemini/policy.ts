import type { PolicySpec } from "../types.ts";

/**
 * `spawn --allow/--deny` on gemini 0.61.0 (read from its bundle, docs/providers.md): a BeforeTool hook
 * can refuse a call (`{"decision":"deny"}`: "Tool execution blocked") or force a question, but never
 * skip one, and gemini has no permission-request hook. So deny rules are umbel's BeforeTool answer,
 * and allow rules go to gemini's own `--allowed-tools` (gemini matches them; those calls are not
 * logged as umbel decisions). gemini reads `run_shell_command(git diff)` as "starts with git diff",
 * and measured on 0.61.0 its allowlist runs `git diff --output=x` (it refuses lists and
 * substitutions itself): so a call of an allow rule's tool that umbel's own allow would not allow
 * is answered `ask` at BeforeTool, which makes gemini ask a person first.
 */
export const GEMINI_POLICY: PolicySpec = {
  allowEvent: null,
  denyEvent: "BeforeTool",
  shellTools: ["run_shell_command"],
  exactIsPrefix: true,
  asksAtDenyEvent: true,
  answer: (verdict, _event, reason) => ({ decision: verdict, reason }),
};
