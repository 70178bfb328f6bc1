import { dirname } from "node:path";
import { isRecord, parseJson } from "../../core/common/json.ts";
import { SpawnFailedError } from "../../core/errors.ts";
import { billingEnvOf, billingFromEnv } from "../../core/limits/billing.ts";
import type { Deps } from "../../core/ports.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import { countEvents } from "../../core/worker/events.ts";
import type { Meta } from "../../core/worker/meta.ts";
import { signInAdvice } from "../../core/worker/sign-in.ts";
import { awaitStructuredServer } from "../guard/structured-call.ts";
import { loadWorker, type Worker } from "../worker/worker.ts";
import { waitReady } from "./await-ready.ts";
import { prepareSpawn } from "./prepare.ts";
import { untrustedFolder } from "./resolve.ts";
import { layOutLaunch, type Made, startInTmux } from "./start.ts";

/**
 * A worker's CLI started again in place, on another account (`--on-limit failover`): same name,
 * same state directory, same tmux session name, same events log. The spawn's own input is kept in
 * the worker's folder (`spawn.json`, 0600, only for a worker spawned with failover; never a value:
 * such a spawn passes its variables by name, core/accounts/failover.ts refuseLiteralEnv); a new
 * env buffer is loaded for the new account, exactly as spawn loads it (stdin, never a command line).
 */

const RELAUNCH_FILE = "spawn.json";

export type Kept = { readonly input: SpawnInput; readonly sessionTrust: boolean };

/** spawn keeps what a relaunch needs (only for a worker that may fail over). */
export async function keepForRelaunch(deps: Deps, input: SpawnInput, sessionTrust: boolean): Promise<void> {
  if (input.onLimit !== "failover") return;
  const kept: Kept = { input, sessionTrust };
  await deps.store.writeWorkerFile(input.name, RELAUNCH_FILE, `${JSON.stringify(kept)}\n`);
}

export type Relaunch = {
  /** The account to run on; null: the provider's default sign-in. */
  readonly account: string | null;
  /** The session to resume, and the record the hooks announced for it (carried first); null: a fresh session. */
  readonly resume: {
    readonly sessionId: string;
    /** null: the record stays where the CLI reads it (the same home: ACP's load and set_mode). */
    readonly transcript: string | null;
  } | null;
  /** The relaunch must be ready by then (ms, the clock's). */
  readonly until: number;
  /** Called once the old TUI is stopped: from then on a failure leaves the worker without its CLI. */
  readonly onStopped?: () => void;
  /**
   * The spawn to start again, from a caller that still holds it (`umbel acp`'s session/set_mode,
   * with the new permission mode); else the worker's spawn.json.
   */
  readonly kept?: Kept;
};

/** Stops the worker's TUI, carries its session, starts it on the new account and waits for it to be ready. */
export async function relaunchWorker(deps: Deps, worker: Worker, change: Relaunch): Promise<Worker> {
  const { meta, provider } = worker;
  const { name } = meta;
  const kept = change.kept ?? (await readKept(deps, name));
  const input = relaunchInput(kept.input, meta, change);
  const prepared = await prepareSpawn(deps, input, { sessionTrust: kept.sessionTrust });
  const paths = deps.store.paths(name);
  // The old TUI goes as `kill` ends it (its session), but the worker stays: no tombstone, no killed
  // state. Its wrapper is hung up before it could write an exit record; one left would read as dead.
  await deps.tmux.killSession(name);
  change.onStopped?.();
  await deps.home.remove(meta.providerFiles ?? []);
  await deps.files.remove(paths.exit);
  const bufferName = `umbel-env-${name}-${deps.system.uuid().slice(0, 8)}`;
  const made: Made = {
    bufferName,
    homeMade: () => undefined,
    worktreeMade: () => undefined,
    unwind: async () => undefined,
  };
  const { started, laidOut, env } = await layOutLaunch(deps, input, prepared, meta.cwd, made);
  if (change.resume?.transcript) await carryRecord(deps, worker, change.resume.transcript, env);
  // A tombstone started again (ACP's session/load of a killed worker) is a live worker once more.
  const { account: _account, providerFiles: _files, killedAt: _killed, ...rest } = meta;
  const next: Meta = {
    ...rest,
    state: "ready",
    ...(change.account === null ? {} : { account: change.account }),
    sessionId: prepared.sessionId,
    ...(input.permissionMode ? { permissionMode: input.permissionMode } : {}),
    envNames: [...(prepared.request.envNames ?? [])],
    ...(laidOut.providerFiles.length > 0 ? { providerFiles: [...laidOut.providerFiles] } : {}),
    // Names only, as spawn decides it (start.ts startingMeta): what reaches the worker now.
    billing: laidOut.billing ?? billingFromEnv(billingEnvOf(provider), Object.keys(env)),
  };
  await deps.store.writeMeta(next);
  const logFrom = countEvents(await deps.store.readHooksLog(name));
  try {
    await startInTmux(deps, {
      name,
      cwd: meta.cwd,
      launchScript: started.assets.launch,
      plan: laidOut.plan,
      env,
      bufferName,
      pool: undefined,
      owned: meta.owner !== undefined,
    });
    await waitReady(deps, provider, name, {
      timeoutMs: Math.max(1000, Math.min(prepared.timeoutMs, change.until - deps.clock.now())),
      untrusted: await untrustedFolder(deps, [meta.cwd, ...(prepared.request.addDirs ?? [])]),
      signInAdvice: signInAdvice({
        provider,
        hostEnv: deps.env,
        passed: Object.keys(prepared.explicitEnv ?? {}),
        configFile: prepared.userConfig.file ?? prepared.userConfig.home,
      }),
      cwd: meta.cwd,
      sessionTrust: kept.sessionTrust,
      logFrom,
    });
    if (input.structured) await awaitStructuredServer(deps, name, change.until);
    // The new CLI is ready, so a record of an exit is the old wrapper's, however late it came.
    if (await deps.store.readExit(name)) await deps.files.remove(paths.exit);
  } catch (error) {
    // A CLI that is not ready (a sign-in screen, a crash) is not left half-started.
    await deps.tmux.killSession(name).catch(() => undefined);
    await deps.tmux.deleteBuffer(bufferName).catch(() => undefined);
    throw error;
  }
  return loadWorker(deps, name);
}

async function readKept(deps: Deps, name: string): Promise<Kept> {
  const text = await deps.store.readWorkerFile(name, RELAUNCH_FILE);
  // umbel's own file (0600), written whole by keepForRelaunch: trusted once it has its shape.
  const value = text === null ? undefined : parseJson(text);
  const kept = isRecord(value) && isRecord(value.input) ? (value as Kept) : null;
  if (!kept)
    throw new SpawnFailedError(
      `worker ${name} has no record of its spawn to relaunch it from (spawned by an older umbel, or without --on-limit failover)`,
      { name },
    );
  return kept;
}

/** The spawn's input for the relaunch: the worker's own cwd (a worktree is kept, not made again). */
function relaunchInput(kept: SpawnInput, meta: Meta, change: Relaunch): SpawnInput {
  const { worktree: _w, base: _b, account: _a, resumeSession: _r, continueSession: _c, ...rest } = kept;
  return {
    ...rest,
    name: meta.name,
    cwd: meta.cwd,
    ...(change.account === null ? {} : { account: change.account }),
    ...(change.resume ? { resumeSession: change.resume.sessionId } : {}),
  };
}

/** The session record copied to where the CLI on the new account reads it (Provider.carrySession). */
async function carryRecord(
  deps: Deps,
  worker: Worker,
  transcript: string,
  env: Readonly<Record<string, string>>,
): Promise<void> {
  const target = worker.provider.carrySession?.(transcript, env) ?? null;
  if (target === null)
    throw new SpawnFailedError(
      `${worker.provider.displayName}'s session record ${transcript} has no place in the new account's home`,
      { name: worker.meta.name, transcript },
    );
  if (target === transcript) return;
  const text = await deps.files.readText(transcript);
  if (text === null)
    throw new SpawnFailedError(`the session record ${transcript} is gone: nothing to resume`, {
      name: worker.meta.name,
      transcript,
    });
  await deps.files.ownDirectory(dirname(target));
  await deps.files.writeAtomic(target, text);
}
