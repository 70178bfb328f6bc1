import { z } from "zod";
import type { SpawnInput } from "../spawn/input.ts";
import { Owner } from "../worker/owner.ts";

/**
 * The warm pool (docs/performance.md#the-warm-pool): spares are ordinary workers named `pool-…`
 * whose meta.json says which spawn they stand in for (a keyed hash of everything the worker's start
 * depends on), how many of them were asked for, and how long an idle one lives. No process of umbel
 * stays alive for them: the TTL timer is tmux's, the refill a detached `umbel pool warm`.
 */

/** The reserved name prefix of spares (`spawn` refuses it for a worker of its own). */
export const SPARE_PREFIX = "pool-";
/** An idle spare retires itself after this (a TUI holds ~200-300 MB while it waits). */
export const DEFAULT_POOL_TTL_MS = 15 * 60_000;
/** `<session>/pool.spare`: exists while the spare is unclaimed (the retire script reads it). */
export const SPARE_MARKER = "pool.spare";

export function isSpareName(name: string): boolean {
  return name.startsWith(SPARE_PREFIX);
}

export const PoolMeta = z.object({
  key: z.string().describe("The keyed hash of the spawn this spare stands in for"),
  size: z.number().int().positive().describe("How many spares of this key `pool warm` keeps"),
  ttlMs: z.number().int().positive().describe("An idle spare retires after this"),
  state: z.enum(["spare", "claimed"]),
  /** A spare `spawn NAME` took over: its directory is NAME's now, and this name links to it. */
  alias: z.string().optional(),
  /**
   * `spawn NAME` taking this spare over, recorded before anything moves: whoever finds it once the
   * claimer is gone finishes it (the directory moved) or undoes it (operations/pool/takeover.ts).
   */
  takeover: z
    .object({
      to: z.string().describe("The name the spare becomes"),
      by: Owner.describe("The process taking it over"),
    })
    .optional(),
});
export type PoolMeta = z.infer<typeof PoolMeta>;

/**
 * resume, continue and a worktree make a worker that no spare can be. Nor does --notify: its command
 * is told the worker's name (UMBEL_WORKER) by the hooks from the path they were started with, which
 * for a spare `spawn NAME` took over is the spare's own (pool warm does not take --notify).
 */
export function isPoolable(input: SpawnInput): boolean {
  return !input.resumeSession && !input.continueSession && !input.worktree && input.notify === undefined;
}

/**
 * The text the spawn key hashes: every input a worker's start depends on, the worker's whole
 * environment included (names and values: two callers with different keys or base URLs must never
 * share a spare). Only its keyed hash is ever written (StorePort.keyedHash).
 */
export function keyMaterial(parts: {
  readonly input: SpawnInput;
  readonly cwd: string;
  readonly bin: string;
  readonly addDirs: readonly string[] | undefined;
  readonly env: Readonly<Record<string, string>>;
}): string {
  const { input } = parts;
  const launch = {
    provider: input.provider,
    bin: parts.bin,
    cwd: parts.cwd,
    addDirs: parts.addDirs ?? null,
    model: input.model ?? null,
    permissionMode: input.permissionMode ?? null,
    allowedTools: input.allowedTools ?? null,
    disallowedTools: input.disallowedTools ?? null,
    unattended: input.unattended === true,
    // umbel -p's workers: another permission mode and policy than the TUI's own.
    nonInteractive: input.nonInteractive === true,
    systemPrompt: input.systemPrompt ?? null,
    appendSystemPrompt: input.appendSystemPrompt ?? null,
    settings: input.settings ?? null,
    mcpConfig: input.mcpConfig ?? null,
    // --structured (and -p --json-schema): umbel's StructuredOutput server is started with the CLI.
    structured: input.structured === true,
    allow: input.allow ?? null,
    deny: input.deny ?? null,
    notify: input.notify ?? null,
    // claude's own auto-continue at a usage limit is set in its settings as it starts.
    onLimit: input.onLimit ?? null,
    // spawn --account: a spare signed in to another account must never stand in for this one.
    account: input.account ?? null,
  };
  const env = Object.keys(parts.env)
    .sort()
    .map((name) => [name, parts.env[name]]);
  return JSON.stringify({ v: 1, launch, env });
}

/**
 * `umbel pool warm N` with the spawn's flags, for the detached refill a claim starts. Env values are
 * never on it: each variable goes as `--env NAME`, its value in the refill's own environment.
 */
export function refillArgv(
  input: Omit<SpawnInput, "name">,
  pool: Pick<PoolMeta, "size" | "ttlMs">,
): string[] {
  const argv = ["pool", "warm", String(pool.size), "--ttl", `${pool.ttlMs}ms`];
  const flag = (name: string, value: unknown) => {
    if (value === undefined || value === false) return;
    if (value === true) argv.push(`--${name}`);
    else if (Array.isArray(value)) for (const v of value) argv.push(`--${name}`, String(v));
    else argv.push(`--${name}`, String(value));
  };
  flag("provider", input.provider);
  flag("cwd", input.cwd);
  flag("model", input.model);
  flag("permission-mode", input.permissionMode);
  flag("allowed-tools", input.allowedTools);
  flag("disallowed-tools", input.disallowedTools);
  flag("unattended", input.unattended);
  flag("system-prompt", input.systemPrompt);
  flag("append-system-prompt", input.appendSystemPrompt);
  flag("add-dir", input.addDir);
  flag("settings", input.settings);
  flag("mcp-config", input.mcpConfig);
  flag("allow", input.allow);
  flag("deny", input.deny);
  flag("structured", input.structured);
  flag("on-limit", input.onLimit);
  flag("account", input.account);
  flag("non-interactive", input.nonInteractive);
  if (input.startTimeout !== undefined) flag("start-timeout", `${input.startTimeout}ms`);
  flag("env", Object.keys(input.env ?? {}));
  return argv;
}
