import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { parseJson } from "../../core/common/json.ts";
import { StateError } from "../../core/errors.ts";
import type { Lock, RunStore, RunsPort } from "../../core/ports.ts";
import { RunBusyError, RunNotFoundError } from "../../core/workflow/errors.ts";
import type { RunState } from "../../core/workflow/state.ts";
import { onPath, ownDirectory, readTextOrNull, writeFileAtomic } from "../files.ts";
import { lockHolder, readLock, takeLock } from "../lock-file.ts";

/** The workflow runs of a state root (see RunsPort); `ready` is the state root check (state-root.ts). */
export function createRuns(root: string, ready: () => Promise<void>): RunsPort {
  return {
    newRunId,
    create: async (runId, text) => {
      await ready();
      return createRunStore(root, runId, text);
    },
    open: async (runId) => {
      await ready();
      return openRunStore(root, runId);
    },
  };
}

/** 20250101-120000-a1b2c3: sorts by start time (UTC), and the random part keeps runs apart. */
function newRunId(now: number): string {
  const stamp = new Date(now).toISOString().replace(/[-:]/g, "").replace("T", "-").slice(0, 15);
  return `${stamp}-${crypto.randomUUID().slice(0, 6)}`;
}

function runDir(root: string, runId: string): string {
  return join(root, "workflows", runId);
}

async function createRunStore(root: string, runId: string, text: string): Promise<RunStore> {
  const dir = runDir(root, runId);
  const runs = join(root, "workflows");
  await ownDirectory(runs);
  await onPath(dir, "create", () => mkdir(dir, { mode: 0o700 }));
  const store = openStore(dir);
  await writeFileAtomic(store.copyPath, text);
  return store;
}

async function openRunStore(
  root: string,
  runId: string,
): Promise<{ store: RunStore; state: RunState; text: string }> {
  const dir = runDir(root, runId);
  const store = openStore(dir);
  const [text, stateText] = await Promise.all([
    readTextOrNull(store.copyPath),
    readTextOrNull(join(dir, "state.json")),
  ]);
  if (text === null || stateText === null)
    throw new RunNotFoundError(`no workflow run ${runId} (looked in ${dir})`, { runId, dir });
  // Loaded here, not at the top: its schema brings the whole workflow schema, and every verb builds
  // the runs port (deps.ts) while only a resume reads a state file.
  const { RunState } = await import("../../core/workflow/state.ts");
  const parsed = RunState.safeParse(parseJson(stateText));
  if (!parsed.success) throw new StateError(`state.json of run ${runId} is unreadable`, { runId, dir });
  return { store, state: parsed.data, text };
}

function openStore(dir: string): RunStore {
  const statePath = join(dir, "state.json");
  const lockPath = join(dir, "lock");
  let chain: Promise<void> = Promise.resolve();
  let held: Lock | null = null;
  return {
    dir,
    copyPath: join(dir, "workflow.yaml"),
    save(state) {
      const text = `${JSON.stringify(state, null, 2)}\n`;
      chain = chain.then(() => writeFileAtomic(statePath, text));
      return chain;
    },
    async lock() {
      // The lock file's takeover rules (lock-file.ts): a holder that died leaves it to the next run.
      const lock = await takeLock(lockPath, process.pid);
      if (lock) {
        held = lock;
        return;
      }
      const seen = await readLock(lockPath);
      const pid = seen ? lockHolder(seen.text)?.pid : undefined;
      throw new RunBusyError(`this run is already going${pid ? ` (pid ${pid})` : ""}: ${dir}`, { dir, pid });
    },
    async unlock() {
      await chain.catch(() => undefined);
      await held?.release();
      held = null;
    },
  };
}
