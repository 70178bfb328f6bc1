import { TOOL_PLACEHOLDER } from "../../policy.ts";
import type { PolicySpec } from "../types.ts";

/**
 * `spawn --allow/--deny` on claude 2.1.332 (measured on the stub, docs/providers.md): PermissionRequest
 * answered `{"hookSpecificOutput":{"hookEventName":"PermissionRequest","decision":{"behavior":"allow"}}}`
 * runs the tool with no prompt ("Allowed by PermissionRequest hook"); a deny at PreToolUse refuses
 * the call in every permission mode (PermissionRequest fires only where claude would ask) and the
 * model goes on to its Stop.
 *
 * A non-interactive worker (umbel -p) denies every PermissionRequest left, as claude -p does: the
 * model gets the message as an error tool_result and goes on (transcript `permissionDecision`
 * reject, source hook). claude -p's own message names the path or command (computed inside claude;
 * the hook's payload does not carry it), so the hook gives claude's generic wording for any tool.
 */
export const CLAUDE_POLICY: PolicySpec = {
  allowEvent: "PermissionRequest",
  denyEvent: "PreToolUse",
  shellTools: ["Bash"],
  askDenial: {
    event: "PermissionRequest",
    message: `Claude requested permissions to use ${TOOL_PLACEHOLDER}, but you haven't granted it yet.`,
  },
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
