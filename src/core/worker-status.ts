import { z } from "zod";
import { BillingRoute } from "./billing.ts";
import { ExitRecord } from "./outcome.ts";
import { WorkerState } from "./schemas.ts";
import { Telemetry } from "./telemetry.ts";

/** A worker as `status` and `ls` show it, and the fleet: every worker of one state root. */

export const StatusResult = z.object({
  name: z.string().describe("Worker name"),
  provider: z.string().describe("The agent CLI running the worker (claude, codex, gemini)"),
  state: WorkerState.describe(
    "starting, idle, busy, needs-input, failed (its spawn died half-way; prune removes it), dead or killed",
  ),
  cwd: z.string().describe("The worker's working directory"),
  createdAt: z.string().describe("When it was spawned (ISO 8601)"),
  sessionId: z.string().nullable().describe("The CLI's session id"),
  model: z.string().nullable().describe("The model it was spawned with, if one was given"),
  pid: z.number().int().nullable().describe("The pane's process id while it runs"),
  exit: ExitRecord.nullable(),
  reason: z
    .string()
    .nullable()
    .describe("Why it is not running: killed, exited, pane-dead, gone, spawner-gone"),
  prompt: z.string().nullable().describe("What it is asking, when state is needs-input"),
  events: z.number().int().describe("Hook events recorded so far"),
  // Optional in the schema only so that older callers' rows still parse; status always fills them.
  onLimit: z
    .enum(["stop", "continue"])
    .optional()
    .describe("What it does at a usage limit: stop (limited, exit 120) or continue through the reset"),
  billing: BillingRoute.optional(),
  telemetry: Telemetry.nullable()
    .optional()
    .describe(
      "Tokens, turns, context, model, cost and usage windows from the provider's own records (null: none yet)",
    ),
});
export type StatusResult = z.infer<typeof StatusResult>;

export const FleetStatus = z.object({
  workers: z.array(StatusResult).describe("Every worker of this state root, by name"),
});
export type FleetStatus = z.infer<typeof FleetStatus>;

/**
 * `status`'s answer: one worker with a name, the fleet without one. An MCP output schema must be an
 * object (a union has no `type: "object"`), so it is the worker's fields, each present when a name
 * was given, beside `workers`, present when none was. Its values are `StatusResult | FleetStatus`.
 */
export const StatusOutput = StatusResult.partial().extend({
  workers: FleetStatus.shape.workers
    .optional()
    .describe("Without a name: every worker of this state root (as ls); the other fields are then absent"),
});
