import { z } from "zod";
import { choiceError } from "../common/suggest.ts";
import { Duration, type WithProvider } from "../schemas.ts";
import { SpawnInput } from "../spawn/input.ts";
import { DialogAnswer } from "../worker/outputs.ts";

/**
 * `umbel pool warm N [spawn flags] | ls | drain` and MCP `umbel_pool`: the spawn flags are spawn's
 * own (minus the name, and what no spare can be: resume, continue, a worktree, --notify; see
 * isPoolable).
 */
export const PoolInput = SpawnInput.omit({
  name: true,
  resumeSession: true,
  continueSession: true,
  worktree: true,
  base: true,
  notify: true,
})
  .extend({
    action: z
      .enum(["warm", "ls", "drain"], { error: choiceError })
      .describe("warm: keep N spares of this spawn ready; ls: list the spares; drain: remove them"),
    count: z
      .number()
      .int()
      .min(1)
      .max(64)
      .optional()
      .describe("warm: how many spares of this spawn to keep (default 1, at most 64)"),
    ttl: Duration.optional().describe("warm: an idle spare retires itself after this (default 15m)"),
  })
  .strict();
/** What the pool runs: the input with its provider resolved by the face (as spawn's). */
export type PoolInput = WithProvider<z.infer<typeof PoolInput>>;

export const SpareInfo = z.object({
  name: z.string().describe("The spare's worker name (pool-…)"),
  provider: z.string().describe("The agent CLI it runs"),
  cwd: z.string().describe("Its working directory"),
  key: z.string().describe("The first 12 characters of its spawn key (equal keys: interchangeable spares)"),
  state: z
    .enum(["starting", "ready", "dead"])
    .describe("starting (not claimable yet), ready, or dead (drain removes it)"),
  ageMs: z.number().describe("Since it was made"),
  ttlMs: z.number().describe("Its idle lifetime, from ready"),
});
export type SpareInfo = z.infer<typeof SpareInfo>;

export const PoolResult = z.object({
  action: z.enum(["warm", "ls", "drain"]).describe("What was done"),
  spares: z.array(SpareInfo).describe("warm: the spares of this key; ls: every spare; drain: none left"),
  made: z.array(z.string()).describe("warm: the spares this call started"),
  removed: z.array(z.string()).describe("drain: the spares removed"),
  dialogs: z
    .array(
      DialogAnswer.extend({
        worker: z.string().describe("The spare that answered it"),
        provider: z.string().describe("Its agent CLI"),
      }),
    )
    .describe("warm: each startup dialog a new spare answered (also said on stderr)"),
  elapsedMs: z.number().describe("How long it took, in milliseconds"),
});
export type PoolResult = z.infer<typeof PoolResult>;

/** The spawn a pool input stands for, as the worker `name`. */
export function spawnOfPool(input: PoolInput, name: string): SpawnInput {
  const { action: _action, count: _count, ttl: _ttl, ...spawn } = input;
  return { ...spawn, name };
}
