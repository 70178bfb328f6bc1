import type { SpawnResult } from "../../core/outputs.ts";
import type { Deps } from "../../core/ports.ts";
import type { ProviderId } from "../../core/schemas.ts";
import { resolveWorkerCwd } from "../../core/workflow/describe.ts";
import type { Workflow } from "../../core/workflow/schema.ts";
import { killWorker } from "../kill.ts";
import { spawnWorker } from "../spawn.ts";

/**
 * The run's workers: spawned on first use, reused across their steps (the conversation carries
 * over), replaced for a `fresh` step, and all killed (tombstoned) when the run ends. Session names
 * are `<key>-<run hex>-<n>`: unique in the state root, and readable in `umbel ls`.
 */
export type WorkerPool = {
  /** The live session for this worker key, spawning (or respawning, when fresh) it first. */
  acquire(deps: Deps, key: string, fresh: boolean): Promise<string>;
  cwdOf(key: string): string;
  /** Kills every session this pool made; never throws. */
  killAll(deps: Deps): Promise<void>;
};

export function createWorkerPool(args: {
  workflow: Workflow;
  baseDir: string;
  runHex: string;
  /** The provider of a worker whose YAML names none. */
  defaultProvider: ProviderId;
  /** How many sessions the run made before (a resume continues the count). */
  sessionsSoFar: number;
  /** Called with a session's name before it is spawned, so the run records it first. */
  onSession: (name: string) => Promise<void>;
  /** The startup dialogs a new session answered (the run reports each). */
  onDialogs?: (result: SpawnResult) => void;
}): WorkerPool {
  const current = new Map<string, string>();
  const made: string[] = [];
  let count = args.sessionsSoFar;
  const cwdOf = (key: string) => resolveWorkerCwd(args.baseDir, args.workflow.workers[key]?.cwd);
  return {
    cwdOf,
    async acquire(deps, key, fresh) {
      const existing = current.get(key);
      if (existing !== undefined && !fresh) return existing;
      if (existing !== undefined) {
        current.delete(key);
        await killQuietly(deps, existing);
      }
      const worker = args.workflow.workers[key];
      if (!worker) throw new Error(`no worker ${key}`); // validated before the run; a bug if reached
      const name = `${key}-${args.runHex}-${++count}`;
      made.push(name);
      await args.onSession(name);
      // A step with a schema needs the StructuredOutput tool in its worker.
      const structured = args.workflow.steps.some((s) => s.run === key && s.schema !== undefined);
      const spawned = await spawnWorker(deps, {
        ...worker,
        provider: worker.provider ?? args.defaultProvider,
        name,
        cwd: cwdOf(key),
        ...(structured ? { structured } : {}),
      });
      args.onDialogs?.(spawned);
      current.set(key, name);
      return name;
    },
    async killAll(deps) {
      current.clear();
      await Promise.all(made.map((name) => killQuietly(deps, name)));
    },
  };
}

/** Removes a session and its tombstone (a finished run's workers); never throws. */
export async function purgeQuietly(deps: Deps, name: string): Promise<void> {
  await killWorker({ ...deps, signal: undefined }, { name, purge: true }).catch(() => undefined);
}

/** Kills a session if it exists; an unwound spawn left nothing behind, which is fine. */
export async function killQuietly(deps: Deps, name: string): Promise<void> {
  // Killing must work while the run is being aborted: it gets no signal.
  await killWorker({ ...deps, signal: undefined }, { name }).catch(() => undefined);
}
