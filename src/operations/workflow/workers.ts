import { parseWorkerRef } from "../../core/hosts/schema.ts";
import type { Deps } from "../../core/ports.ts";
import type { ProviderId } from "../../core/schemas.ts";
import type { SpawnResult } from "../../core/worker/outputs.ts";
import { resolveWorkerCwd } from "../../core/workflow/describe.ts";
import type { Workflow } from "../../core/workflow/schema.ts";
import { hostVerbs } from "./host-verbs.ts";
import { localVerbs } from "./local-verbs.ts";
import { recordedName, type WorkerVerbs } from "./worker-verbs.ts";

/**
 * The run's workers: spawned on first use, reused across their steps (the conversation carries
 * over), replaced for a `fresh` step, and all killed (tombstoned) when the run ends, but for the
 * ones a person is to answer (`spare`). Session names are `<key>-<run hex>-<n>`: unique in the state
 * root, and readable in `umbel ls`; a worker on a host (`host:`) is `HOST:<key>-<run hex>-<n>`, its
 * verbs relayed there (worker-verbs.ts). A resume hands it the sessions it keeps and the CLI sessions a
 * worker's next spawn resumes (core/workflow/resume.ts).
 */
export type WorkerPool = {
  /** The live session for this worker key, spawning (or respawning, when fresh) it first. */
  acquire(deps: Deps, key: string, fresh: boolean): Promise<string>;
  cwdOf(key: string): string;
  /** Kills every session this pool made or kept but those in `spare`; never throws. */
  killAll(deps: Deps, spare?: ReadonlySet<string>): Promise<void>;
};

export function createWorkerPool(args: {
  workflow: Workflow;
  baseDir: string;
  runHex: string;
  /** The provider of a worker whose YAML names none. */
  defaultProvider: ProviderId;
  /** How many sessions the run made before (a resume continues the count). */
  sessionsSoFar: number;
  /** Called with a session's name (and its worker) before it is spawned, so the run records it first. */
  onSession: (name: string, key: string) => Promise<void>;
  /** The startup dialogs a new session answered (the run reports each). */
  onDialogs?: (result: SpawnResult) => void;
  /** A resume: the live sessions it goes on with, by worker. */
  kept?: Readonly<Record<string, string>>;
  /** A resume: the CLI session each worker's next spawn resumes. */
  resumeFrom?: Readonly<Record<string, string>>;
}): WorkerPool {
  const current = new Map<string, string>(Object.entries(args.kept ?? {}));
  const made: string[] = [...current.values()];
  const resumeFrom = new Map(Object.entries(args.resumeFrom ?? {}));
  let count = args.sessionsSoFar;
  // A host's path is the host's, as given (never resolved against this machine's folders).
  const cwdOf = (key: string) => {
    const worker = args.workflow.workers[key];
    return worker?.host === undefined ? resolveWorkerCwd(args.baseDir, worker?.cwd) : (worker.cwd ?? "");
  };
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
      const { host, cwd, ...spawn } = worker;
      const local = `${key}-${args.runHex}-${++count}`;
      const name = recordedName(host, local);
      made.push(name);
      await args.onSession(name, key);
      // A step with a schema needs the StructuredOutput tool in its worker.
      const structured = args.workflow.steps.some((s) => s.run === key && s.schema !== undefined);
      // A fresh step never resumes a conversation; the first spawn after a resume does.
      const resumeSession = fresh ? undefined : resumeFrom.get(key);
      resumeFrom.delete(key);
      const spawned = await verbsOf(name).verbs.spawn(
        deps,
        {
          ...spawn,
          name: local,
          // A host worker without a cwd: the host's umbel's own folder.
          ...(host === undefined || cwd !== undefined ? { cwd: cwdOf(key) } : {}),
          ...(structured ? { structured } : {}),
          ...(resumeSession === undefined ? {} : { resumeSession }),
        },
        args.defaultProvider,
      );
      args.onDialogs?.(spawned);
      current.set(key, name);
      return name;
    },
    async killAll(deps, spare) {
      current.clear();
      await Promise.all(made.filter((name) => !spare?.has(name)).map((name) => killQuietly(deps, name)));
    },
  };
}

/** A session as the run records it (`rev-…-1`, `box:rev-…-1`) → the verbs of its machine, and its name there. */
export function verbsOf(session: string): { verbs: WorkerVerbs; name: string } {
  const ref = parseWorkerRef(session);
  return { verbs: ref.host === null ? localVerbs : hostVerbs(ref.host), name: ref.name };
}

/** Removes a session and its tombstone (a finished run's workers); never throws. */
export async function purgeQuietly(deps: Deps, session: string): Promise<void> {
  const { verbs, name } = verbsOf(session);
  await verbs.kill({ ...deps, signal: undefined }, { name, purge: true }).catch(() => undefined);
}

/** Kills a session if it exists; an unwound spawn left nothing behind, which is fine. */
export async function killQuietly(deps: Deps, session: string): Promise<void> {
  const { verbs, name } = verbsOf(session);
  // Killing must work while the run is being aborted: it gets no signal. A host that cannot be
  // reached keeps its worker (it runs on there, listed by `umbel ls`).
  await verbs.kill({ ...deps, signal: undefined }, { name }).catch(() => undefined);
}
