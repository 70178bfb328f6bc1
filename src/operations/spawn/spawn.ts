import type { Placement } from "../../core/accounts/placement.ts";
import type { PoolMeta } from "../../core/pool/pool.ts";
import type { Deps, Lock } from "../../core/ports.ts";
import type { Provider } from "../../core/providers/types.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import { buildWorkerEnv } from "../../core/worker/env.ts";
import type { Meta } from "../../core/worker/meta.ts";
import type { SpawnResult } from "../../core/worker/outputs.ts";
import { OWNER_FILE, ownerLine } from "../../core/worker/owner.ts";
import { type SignInAdvice, signInAdvice } from "../../core/worker/sign-in.ts";
import { placeSpawn } from "../accounts/place.ts";
import { writeFleetFiles } from "../fleet/files.ts";
import { awaitStructuredServer } from "../guard/structured-call.ts";
import { waitReady } from "./await-ready.ts";
import { holdBootSlot } from "./boot-slot.ts";
import { DEFAULT_START_TIMEOUT_MS, prepareSpawn } from "./prepare.ts";
import { keepForRelaunch } from "./relaunch.ts";
import { untrustedFolder } from "./resolve.ts";
import {
  layOutHome,
  makeLaunchInput,
  makeWorkerCwd,
  planHomeless,
  startInTmux,
  startingMeta,
  trackMade,
} from "./start.ts";

/** How a worker is made beyond its input: a spare of the warm pool, and how it may trust its folder. */
export type SpawnExtra = {
  readonly pool?: PoolMeta | undefined;
  /**
   * Trust the folder for the worker's own session only, leaving no lasting trust behind (-p, the
   * warm pool's spares): the CLI is told so where it can be (claude: CLAUDE_CODE_SANDBOXED), and a
   * trust question whose answer it would keep is refused (InputRequiredError), never answered. spawn
   * answers it as a person would, and the CLI keeps it (docs/cli-reference.md#spawn-name).
   */
  readonly sessionTrust?: boolean | undefined;
  /**
   * The worker is this process's alone (an anonymous -p's): meta.owner and the owner file name it,
   * and its wrapper ends the worker's session once it is gone (hooks/launch.sh --owned).
   */
  readonly owned?: boolean | undefined;
  /**
   * The account `--account auto` was placed on, by a caller that placed it before (spawnOrClaim,
   * -p: the warm pool's key is the picked account's); the input names that account then.
   */
  readonly placement?: Placement | null | undefined;
};

/**
 * Creates a worker and returns when its TUI is ready. Everything is validated before any I/O; any
 * failure after the name is claimed unwinds the tmux session, the buffer and the session directory.
 */
export async function spawnWorker(
  deps: Deps,
  input: SpawnInput,
  extra: SpawnExtra = {},
): Promise<SpawnResult> {
  const started = deps.clock.now();
  const launched = await launchWorker(deps, input, { ...extra, bootSlot: true });
  const { meta, provider, untrusted, signInAdvice: advice, dialogRecord, unwind } = launched;
  try {
    const timeoutMs = input.startTimeout ?? DEFAULT_START_TIMEOUT_MS;
    deps.trace.mark(`spawn ${input.name}: ${provider.id} started in tmux, waiting for ready`);
    const answered = await waitReady(deps, provider, input.name, {
      timeoutMs,
      untrusted,
      signInAdvice: advice,
      cwd: meta.cwd,
      sessionTrust: extra.sessionTrust === true,
    });
    const dialogs = answered.map((d) => (d.lasting && dialogRecord ? { ...d, record: dialogRecord } : d));
    if (input.structured) await awaitStructuredServer(deps, input.name, started + timeoutMs);
    const { spawner: _spawned, ...ready } = meta;
    await deps.store.writeMeta({
      ...ready,
      state: "ready",
      readyAt: new Date(deps.clock.now()).toISOString(),
    });
    deps.trace.mark(`spawn ${input.name}: ready`);
    return {
      name: input.name,
      provider: provider.id,
      cwd: meta.cwd,
      sessionId: meta.sessionId,
      state: "ready",
      elapsedMs: deps.clock.now() - started,
      dialogsAnswered: dialogs.map((d) => d.dialog),
      dialogs,
      ...(meta.worktree
        ? { worktree: { path: meta.worktree.path, branch: meta.worktree.branch, base: meta.worktree.base } }
        : {}),
      ...(meta.placement ? { placement: meta.placement } : {}),
    };
  } catch (error) {
    await unwind();
    throw error;
  } finally {
    await launched.bootSlot?.release();
  }
}

/** A worker whose CLI is started in tmux; its TUI may still be on a startup screen. */
export type LaunchedWorker = {
  readonly meta: Meta;
  readonly provider: Provider;
  /** / or the home directory, when the CLI may ask to trust it (umbel never answers that itself). */
  readonly untrusted: string | null;
  /** What a sign-in refusal tells the user to do (core/worker/sign-in.ts). */
  readonly signInAdvice: SignInAdvice;
  /** Where the CLI keeps a lasting dialog answer, for this worker's environment (Provider.dialogRecord). */
  readonly dialogRecord: string | null;
  /** Removes what the launch made: the session, the env buffer, the provider files, the directory. */
  unwind(): Promise<void>;
  /** The boot slot taken for it (UMBEL_MAX_STARTING), when asked for: the caller frees it once ready. */
  readonly bootSlot: Lock | null;
};

/**
 * spawn up to the wait for ready: validates, claims the name, lays out the provider's home, writes
 * meta.json ("starting") and starts the CLI. A failure unwinds what it made; once it returns, the
 * caller owns `unwind` (the integration tests watch startup screens from here).
 */
export async function launchWorker(
  deps: Deps,
  asked: SpawnInput,
  extra: SpawnExtra & { bootSlot?: boolean } = {},
): Promise<LaunchedWorker> {
  // --account auto: placed first (no tmux call), then the spawn goes on as --account <picked>.
  const { input, placement } = extra.placement
    ? { input: asked, placement: extra.placement }
    : await placeSpawn(deps, asked);
  const prepared = await prepareSpawn(deps, input, { sessionTrust: extra.sessionTrust === true });
  const { provider, explicitEnv, userConfig } = prepared;
  // Everything is valid: wait for a boot slot (spawns of one provider start in waves).
  const bootSlot = extra.bootSlot
    ? await holdBootSlot(deps, provider.id, input.name, prepared.timeoutMs)
    : null;
  // The name, claimed (mkdir: of two spawns of one name, one wins); the slot goes if it is taken.
  try {
    await deps.store.claim(input.name);
  } catch (error) {
    await bootSlot?.release();
    throw error;
  }
  const made = trackMade(deps, input.name, bootSlot);
  try {
    // No await without a --worktree: test/unit/spawn/boot-slots.test.ts's virtual clock runs on while a
    // spawn waits for a slot, so each await between a slot and the tmux start is time on that clock.
    const cwd = prepared.worktree ? await makeWorkerCwd(deps, prepared.worktree, made) : prepared.cwd;
    const started = await makeLaunchInput(deps, input, prepared);
    const where = {
      name: input.name,
      cwd,
      workerEnvNames: prepared.workerEnvNames,
      // An account's home, where the provider's planner looks for the user's (codex, gemini).
      hostEnv: { ...deps.env, ...prepared.account?.hostEnv },
    };
    const laidOut = provider.home
      ? await layOutHome(deps, provider, where, started, made)
      : planHomeless(provider, started.launch);
    const env = buildWorkerEnv({
      host: deps.env,
      provider,
      providerEnv: laidOut.plan.env,
      explicit: explicitEnv,
      umbel: { UMBEL_HOME: deps.store.root, UMBEL_SESSION: input.name },
    });
    const start = prepared.spawnerStart;
    const owner = extra.owned && start !== null ? { pid: deps.pid, start } : null;
    const meta = {
      ...startingMeta(deps, input, {
        prepared,
        cwd,
        laidOut,
        envNames: Object.keys(env),
        owner,
        pool: extra.pool,
      }),
      ...(placement ? { placement } : {}),
    };
    await deps.store.writeMeta(meta);
    // Only when asked for: see the virtual clock's note above.
    if (input.onLimit === "failover") await keepForRelaunch(deps, input, extra.sessionTrust === true);
    await writeFleetFiles(deps, provider, input);
    // Before the wrapper starts: it watches the owner from its first second.
    if (owner) await deps.store.writeWorkerFile(input.name, OWNER_FILE, ownerLine(owner));
    await startInTmux(deps, {
      name: input.name,
      cwd,
      launchScript: started.assets.launch,
      plan: laidOut.plan,
      env,
      bufferName: made.bufferName,
      pool: extra.pool,
      owned: owner !== null,
    });
    return {
      meta,
      provider,
      untrusted: await untrustedFolder(deps, [cwd, ...(prepared.request.addDirs ?? [])]),
      signInAdvice: signInAdvice({
        provider,
        hostEnv: deps.env,
        passed: Object.keys(explicitEnv ?? {}),
        configFile: userConfig.file ?? userConfig.home,
      }),
      dialogRecord: provider.dialogRecord?.(env) ?? null,
      unwind: made.unwind,
      bootSlot,
    };
  } catch (error) {
    await made.unwind();
    throw error;
  }
}
