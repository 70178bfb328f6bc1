import type { PolicySpec } from "../types.ts";

/**
 * `spawn --allow/--deny` on codex 0.171.0 (measured on the stub, docs/providers.md): its
 * PermissionRequest hook takes claude's answer (`decision.behavior` allow runs the escalated command
 * with no prompt; deny shows "Blocked by hook" and the model goes on to Stop), and a PreToolUse
 * `permissionDecision: "deny"` refuses any call before it runs.
 */
export const CODEX_POLICY: PolicySpec = {
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
