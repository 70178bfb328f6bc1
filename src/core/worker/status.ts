import { z } from "zod";
import { QueueEntry } from "../fleet/queue.ts";
import { GuardPhase } from "../guard/record.ts";
import { HostDown } from "../hosts/schema.ts";
import { BillingRoute } from "../limits/billing.ts";
import { OnLimit } from "../limits/limits.ts";
import { Telemetry } from "../limits/telemetry.ts";
import { WorkerState } from "../schemas.ts";
import { ExitRecord } from "../wait/outcome.ts";
import { BrokenWorker } from "./broken.ts";

/** A worker as `status` and `ls` show it, and the fleet: every worker of one state root. */

export const StatusResult = z.object({
  name: z.string().describe("Worker name"),
  provider: z.string().describe("The agent CLI running the worker (claude, codex, gemini, opencode)"),
  state: WorkerState.describe(
    "starting, idle, busy, needs-input, failed (its spawn died half-way; prune removes it), orphaned (an anonymous -p's worker whose -p is gone; prune removes it), dead, killed, or broken (its state cannot be read: see broken)",
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
    .describe("Why it is not running: killed, exited, pane-dead, gone, spawner-gone, owner-gone"),
  prompt: z.string().nullable().describe("What it is asking, when state is needs-input"),
  events: z.number().int().describe("Hook events recorded so far"),
  inputId: z
    .string()
    .nullable()
    .optional()
    .describe("The id of the prompt it shows, when state is needs-input (for answer --input-id)"),
  policy: z
    .object({
      allow: z.array(z.string()).describe("spawn --allow patterns"),
      deny: z.array(z.string()).describe("spawn --deny patterns"),
      allowed: z.number().int().describe("Tool calls the policy allowed so far"),
      denied: z.number().int().describe("Tool calls the policy denied so far"),
    })
    .optional()
    .describe("The worker's permission policy (spawn --allow/--deny) and its automatic decisions"),
  worktree: z
    .object({
      path: z.string().describe("The worktree"),
      branch: z.string().describe("Its branch, umbel/<name>"),
      dirty: z.boolean().nullable().describe("It holds uncommitted work (null: the worktree is gone)"),
    })
    .optional()
    .describe("The worker's own git worktree (spawn --worktree)"),
  queue: z
    .array(QueueEntry)
    .optional()
    .describe("Its queued prompts (send --queue), in order, with the recently sent ones and their baselines"),
  guard: z
    .object({
      attempt: z.number().int().describe("Which attempt is on (1: the turn that was sent)"),
      maxAttempts: z.number().int().describe("How many attempts it may take"),
      phase: GuardPhase.describe("turn: the worker is on it · checking · feedback: sending the next attempt"),
    })
    .nullable()
    .describe(
      "The last turn's guardrails (--json-schema, --accept) while they are being enforced, else null",
    ),
  // Optional in the schema only so that older callers' rows still parse; status always fills them.
  onLimit: OnLimit.optional().describe(
    "What it does at a usage limit: stop (limited, exit 120), continue through the reset, or failover to another account",
  ),
  billing: BillingRoute.optional(),
  account: z
    .string()
    .nullable()
    .optional()
    .describe(
      "The account of config.toml it runs on (spawn --account); null: the provider's default sign-in",
    ),
  broken: BrokenWorker.optional(),
  host: z
    .string()
    .nullable()
    .optional()
    .describe(
      "In the fleet view: the host of config.toml it runs on (its name is then HOST:NAME); null: this machine",
    ),
  telemetry: Telemetry.nullable()
    .optional()
    .describe(
      "Tokens, turns, context, model, cost and usage windows from the provider's own records (null: none yet)",
    ),
});
export type StatusResult = z.infer<typeof StatusResult>;

export const FleetStatus = z.object({
  workers: z
    .array(StatusResult)
    .describe(
      "Every worker of this state root, by name, then each host's (HOST:NAME), in config.toml's order",
    ),
  hosts: z
    .array(z.string())
    .optional()
    .describe(
      "The hosts of config.toml that were asked, all at once and each bounded (none declared: absent)",
    ),
  unreachable: z
    .array(HostDown)
    .optional()
    .describe("The hosts that gave no workers, each with its reason (absent when every host answered)"),
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
  hosts: FleetStatus.shape.hosts.describe("Without a name: the hosts asked (as ls)"),
  unreachable: FleetStatus.shape.unreachable.describe(
    "Without a name: the hosts that gave no workers (as ls)",
  ),
});
