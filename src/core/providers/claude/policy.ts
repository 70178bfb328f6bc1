import type { PolicySpec } from "../types.ts";

/**
 * `spawn --allow/--deny` on claude 2.1.332 (measured on the stub, docs/providers.md): PermissionRequest
 * answered `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
 * runs the tool with no prompt ("Allowed by PermissionRequest hook"); a deny at PreToolUse refuses
 * the call in every permission mode (PermissionRequest fires only where claude would ask) and the
 * model goes on to its Stop.
 */
export const CLAUDE_POLICY: PolicySpec = {
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
