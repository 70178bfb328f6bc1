import { TOOL_PLACEHOLDER } from "../fleet/policy/rules.ts";
import type { PolicySpec } from "./types.ts";

/**
 * `spawn --allow/--deny` where the CLI has claude's PermissionRequest and PreToolUse hooks, measured
 * on the stub (docs/providers.md):
 * - claude 2.1.332: PermissionRequest answered
 *   `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
 *   runs the tool with no prompt ("Allowed by PermissionRequest hook"); a deny at PreToolUse refuses
 *   the call in every permission mode (PermissionRequest fires only where claude would ask) and the
 *   model goes on to its Stop.
 * - codex 0.171.0: its PermissionRequest hook takes claude's answer (`decision.behavior` allow runs
 *   the escalated command with no prompt; deny shows "Blocked by hook" and the model goes on to
 *   Stop), and a PreToolUse `permissionDecision: "deny"` refuses any call before it runs.
 */
export const HOOK_POLICY: PolicySpec = {
  allowEvent: "PermissionRequest",
  denyEvent: "PreToolUse",
  shellTools: ["Bash"],
  answer: (verdict, event, reason) =>
    event === "PermissionRequest"
      ? {
          hookSpecificOutput: {
            hookEventName: event,
            // An allow carries nothing else: the measured answer is exactly {behavior: "allow"}.
            decision: verdict === "allow" ? { behavior: verdict } : { behavior: verdict, message: reason },
          },
        }
      : {
          hookSpecificOutput: {
            hookEventName: event,
            permissionDecision: verdict,
            permissionDecisionReason: reason,
          },
        },
};

/**
 * claude's: a non-interactive worker (umbel -p) denies every PermissionRequest its rules left, as
 * claude -p does (2.1.332): the model gets the message as an error tool_result and goes on
 * (transcript `permissionDecision` reject, source hook). claude -p's own message names the path or
 * command (computed inside claude; the hook's payload does not carry it), so umbel gives claude's
 * generic wording with the call's tool name. codex is made non-interactive by its flags (`-a never`).
 */
export const CLAUDE_POLICY: PolicySpec = {
  ...HOOK_POLICY,
  askDenial: {
    event: "PermissionRequest",
    message: `Claude requested permissions to use ${TOOL_PLACEHOLDER}, but you haven't granted it yet.`,
  },
};
