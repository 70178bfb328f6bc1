import { z } from "zod";
import { Placement } from "../accounts/placement.ts";
import { BillingRoute } from "../limits/billing.ts";
import { OnLimit } from "../limits/limits.ts";
import { PoolMeta } from "../pool/pool.ts";
import { PermissionMode, ProviderId, WorkerName } from "../schemas.ts";
import { Owner } from "./owner.ts";

/** sessions/<name>/meta.json: what a worker is. Never holds an environment value. */
export const Meta = z.object({
  version: z.literal(1),
  name: WorkerName,
  provider: ProviderId,
  cwd: z.string(),
  bin: z.string(),
  sessionId: z.string(),
  socket: z.string(),
  createdAt: z.string(),
  model: z.string().optional(),
  permissionMode: PermissionMode.optional(),
  allowedTools: z.array(z.string()).optional(),
  unattended: z.boolean().optional(),
  /** Started non-interactive (spawn --non-interactive, umbel -p): asks are refused, never shown. */
  nonInteractive: z.boolean().optional(),
  /** Spawned with umbel's StructuredOutput tool (spawn --structured): its turns can take a schema. */
  structured: z.boolean().optional(),
  /** The account of config.toml it runs on (spawn --account); absent: the provider's default sign-in. */
  account: z.string().optional(),
  /** spawn --account auto: how the account was chosen (logs shows it first). */
  placement: Placement.optional(),
  /** What the worker does at a usage limit (absent: stop). */
  onLimit: OnLimit.optional(),
  /** The billing route its env and settings select (names only; absent in older state: derived). */
  billing: BillingRoute.optional(),
  /** Names (never values) of the variables passed explicitly, for `status`. */
  envNames: z.array(z.string()),
  /** Files of the provider's home that belong to this worker alone; kill removes them. */
  providerFiles: z.array(z.string()).optional(),
  state: z.enum(["starting", "ready", "killed"]),
  /**
   * The process that ran spawn, while the worker is starting: its pid and that process's start
   * (pids are reused). A starting worker whose spawner is gone was never finished (umbel was killed).
   */
  spawner: z.object({ pid: z.number().int(), start: z.string() }).optional(),
  readyAt: z.string().optional(),
  /** An anonymous -p's worker: the -p it belongs to (core/worker/owner.ts); gone, the worker is orphaned. */
  owner: Owner.optional(),
  /** spawn --allow / --deny, as given (the hook answers them from policy.tsv). */
  policy: z.object({ allow: z.array(z.string()), deny: z.array(z.string()) }).optional(),
  /** spawn --notify was given (the command is in notify.cmd). */
  notify: z.boolean().optional(),
  /** spawn --worktree: the worker's own git worktree (its cwd) and branch, from `base` in `repo`. */
  worktree: z.object({ path: z.string(), branch: z.string(), base: z.string(), repo: z.string() }).optional(),
  killedAt: z.string().optional(),
  /** A spare of the warm pool (core/pool/pool.ts), or the worker a claimed one became. */
  pool: PoolMeta.optional(),
});
export type Meta = z.infer<typeof Meta>;
