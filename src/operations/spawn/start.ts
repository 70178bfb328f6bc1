import { join } from "node:path";
import { shellQuote } from "../../core/common/shell.ts";
import { structuredServer } from "../../core/guard/tool.ts";
import { type BillingRoute, billingEnvOf, billingFromEnv } from "../../core/limits/billing.ts";
import { STATUS_LINE_FILE } from "../../core/limits/telemetry.ts";
import type { PoolMeta } from "../../core/pool/pool.ts";
import type { Assets, Deps, Lock } from "../../core/ports.ts";
import type { LaunchInput, LaunchPlan } from "../../core/providers/launch-types.ts";
import type { HomedProvider, PlainProvider } from "../../core/providers/types.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import { buildWorkerEnv, renderEnvScript } from "../../core/worker/env.ts";
import { INCARNATION_FILE } from "../../core/worker/events.ts";
import type { Meta } from "../../core/worker/meta.ts";
import { makeWorktree, unmakeWorktree, type WorktreePlan } from "../fleet/worktree.ts";
import type { PreparedSpawn } from "./prepare.ts";

/** The steps of a launch once the name is claimed: each makes one thing, and `Made` can take it all back. */

const PANE = { width: 160, height: 50 } as const;

/** What a launch has made, and how to take it back. */
export type Made = {
  /** The tmux buffer that carries the worker's env into its pane. */
  readonly bufferName: string;
  /**
   * Removes the tmux session, the env buffer, the session directory, the provider files and the
   * worktree, and frees the boot slot.
   */
  unwind(): Promise<void>;
  /** The provider files laid out. */
  homeMade(paths: readonly string[]): void;
  /** The worktree, once this spawn made it (an existing umbel/<name> branch may hold someone's work). */
  worktreeMade(plan: WorktreePlan): void;
};

/** What a launch that has just claimed `name` will make, to take back on a failure. */
export function trackMade(deps: Deps, name: string, bootSlot: Lock | null): Made {
  const bufferName = `umbel-env-${name}-${deps.system.uuid().slice(0, 8)}`;
  const home: string[] = [];
  let worktree: WorktreePlan | null = null;
  return {
    bufferName,
    homeMade: (paths) => home.push(...paths),
    worktreeMade: (plan) => {
      worktree = plan;
    },
    unwind: async () => {
      await deps.tmux.killSession(name).catch(() => undefined);
      await deps.tmux.deleteBuffer(bufferName).catch(() => undefined);
      await deps.store.remove(name).catch(() => undefined);
      await deps.home.remove(home);
      if (worktree) await unmakeWorktree(deps, worktree);
      await bootSlot?.release();
    },
  };
}

/** The worker's cwd in the --worktree made for it. */
export async function makeWorkerCwd(deps: Deps, plan: WorktreePlan, made: Made): Promise<string> {
  await makeWorktree(deps, plan);
  made.worktreeMade(plan);
  return plan.cwd;
}

/**
 * The request with what the engine makes for this worker: the hook and statusline commands over the
 * embedded scripts, this incarnation's mark, the StructuredOutput server.
 */
export async function makeLaunchInput(
  deps: Deps,
  input: SpawnInput,
  prepared: PreparedSpawn,
): Promise<{ launch: LaunchInput; assets: Assets }> {
  const root = deps.store.root;
  const paths = deps.store.paths(input.name);
  const assets = await deps.system.installAssets(root);
  // This worker's incarnation: its hooks append only while <session>/incarnation holds it. A hook
  // of a worker killed with --purge can run after a new worker of its name has the same paths (the
  // fake claude's SessionEnd at a hang-up), and its line must not land in that worker's log.
  const incarnation = deps.system.uuid();
  await deps.store.writeWorkerFile(input.name, INCARNATION_FILE, incarnation);
  const hookCommand = `sh ${shellQuote(assets.hook)} ${shellQuote(paths.hooksLog)} ${incarnation}`;
  const structured = input.structured
    ? structuredServer(deps.system.selfArgv(), await deps.files.realpath(root), input.name)
    : undefined;
  const statusLineCommand = `sh ${shellQuote(assets.statusLine)} ${shellQuote(join(paths.events, STATUS_LINE_FILE))}`;
  const launch: LaunchInput = {
    ...prepared.request,
    bin: prepared.bin,
    sessionId: prepared.sessionId,
    hookCommand,
    eventsLog: paths.hooksLog,
    structuredServer: structured,
    isRoot: deps.uid === 0,
    statusLineCommand,
  };
  return { launch, assets };
}

export type LaidOut = {
  readonly plan: LaunchPlan;
  /** What kill removes. */
  readonly providerFiles: readonly string[];
  /** The billing route the home's settings select, when they decide it (gemini). */
  readonly billing: BillingRoute | undefined;
};

/** The launch planned with no home of the provider's own (claude). */
export function planHomeless(provider: PlainProvider, launch: LaunchInput): LaidOut {
  return { plan: provider.planLaunch(launch), providerFiles: [], billing: undefined };
}

/** The provider's home laid out (codex, gemini, opencode) and its launch planned over it. */
export async function layOutHome(
  deps: Deps,
  provider: HomedProvider,
  where: {
    readonly name: string;
    readonly cwd: string;
    readonly workerEnvNames: readonly string[];
    readonly hostEnv: Readonly<Record<string, string | undefined>>;
  },
  started: { launch: LaunchInput; assets: Assets },
  made: Made,
): Promise<LaidOut> {
  const { name } = where;
  const { launch, assets } = started;
  const paths = deps.store.paths(name);
  const context = {
    stateRoot: await deps.files.realpath(deps.store.root),
    sessionDir: await deps.files.realpath(paths.dir),
    worker: name,
    cwd: await deps.files.realpath(where.cwd),
    hookCommand: launch.hookCommand,
    eventsLog: paths.hooksLog,
    eventsPlugin: assets.plugin,
    hostEnv: where.hostEnv,
    workerEnvNames: where.workerEnvNames,
    launch,
  };
  const home = provider.home.plan(context, await deps.home.read(provider.home.reads(context)));
  made.homeMade(await deps.home.layOut(home.entries));
  return {
    plan: provider.planLaunch(launch, { path: home.home, worker: name }),
    providerFiles: home.removeOnKill,
    billing: home.billing,
  };
}

/**
 * One launch's input, the provider's home laid out (or none planned) and the worker's whole env: a
 * failover's relaunch of a worker on another account (spawn/relaunch.ts). spawn.ts takes the same
 * steps inline: with no worktree it must not add an await between its boot slot and the tmux start
 * (test/unit/spawn/boot-slots.test.ts's virtual clock runs on meanwhile).
 */
export async function layOutLaunch(
  deps: Deps,
  input: SpawnInput,
  prepared: PreparedSpawn,
  cwd: string,
  made: Made,
): Promise<{
  started: { launch: LaunchInput; assets: Assets };
  laidOut: LaidOut;
  env: Record<string, string>;
}> {
  const { provider } = prepared;
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
    explicit: prepared.explicitEnv,
    umbel: { UMBEL_HOME: deps.store.root, UMBEL_SESSION: input.name },
  });
  return { started, laidOut, env };
}

/** meta.json as spawn first writes it ("starting"): the worker's record before its CLI runs. */
export function startingMeta(
  deps: Deps,
  input: SpawnInput,
  facts: {
    readonly prepared: PreparedSpawn;
    readonly cwd: string;
    readonly laidOut: LaidOut;
    readonly envNames: readonly string[];
    readonly owner: { pid: number; start: string } | null;
    readonly pool: PoolMeta | undefined;
  },
): Meta {
  const { prepared, laidOut, owner, pool } = facts;
  const { provider, worktree, spawnerStart } = prepared;
  const unattended = input.unattended === true;
  return {
    version: 1,
    name: input.name,
    provider: provider.id,
    cwd: facts.cwd,
    bin: prepared.bin,
    sessionId: prepared.sessionId,
    socket: deps.tmux.socket,
    createdAt: new Date(deps.clock.now()).toISOString(),
    envNames: [...(prepared.request.envNames ?? [])],
    state: "starting",
    // Where a process's start cannot be read, no spawner is recorded (never a false "gone").
    ...(spawnerStart === null ? {} : { spawner: { pid: deps.pid, start: spawnerStart } }),
    ...(owner ? { owner } : {}),
    ...(input.model ? { model: input.model } : {}),
    ...(input.permissionMode ? { permissionMode: input.permissionMode } : {}),
    ...(input.allowedTools ? { allowedTools: input.allowedTools } : {}),
    ...(unattended ? { unattended } : {}),
    ...(input.nonInteractive ? { nonInteractive: true } : {}),
    ...(input.structured ? { structured: true } : {}),
    ...(laidOut.providerFiles.length > 0 ? { providerFiles: [...laidOut.providerFiles] } : {}),
    ...(input.allow?.length || input.deny?.length
      ? { policy: { allow: input.allow ?? [], deny: input.deny ?? [] } }
      : {}),
    ...(input.notify === undefined ? {} : { notify: true }),
    ...(worktree
      ? {
          worktree: {
            path: worktree.path,
            branch: worktree.branch,
            base: worktree.base,
            repo: worktree.repo,
          },
        }
      : {}),
    ...(input.onLimit ? { onLimit: input.onLimit } : {}),
    ...(input.account ? { account: input.account } : {}),
    // Names only: what reached the worker decides its route (status shows it).
    billing: laidOut.billing ?? billingFromEnv(billingEnvOf(provider), facts.envNames),
    // A warm pool's spare (core/pool/pool.ts): claimable once ready, while pool.spare exists.
    ...(pool ? { pool } : {}),
  };
}

/** One tmux invocation: the env buffer loaded from stdin and the session started on launch.sh. */
export function startInTmux(
  deps: Deps,
  session: {
    readonly name: string;
    readonly cwd: string;
    readonly launchScript: string;
    readonly plan: LaunchPlan;
    readonly env: Readonly<Record<string, string>>;
    readonly bufferName: string;
    readonly pool: PoolMeta | undefined;
    readonly owned: boolean;
  },
): Promise<void> {
  const { name, pool, bufferName } = session;
  return deps.tmux.newSession({
    name,
    cwd: session.cwd,
    ...PANE,
    command: [
      "sh",
      session.launchScript,
      // A spare retires itself once idle this long (hooks/launch.sh keeps the timer).
      ...(pool ? ["--retire-after", String(Math.ceil(pool.ttlMs / 1000))] : []),
      ...(session.owned ? ["--owned"] : []),
      deps.tmux.socket,
      bufferName,
      deps.store.paths(name).events,
      ...session.plan.argv,
    ],
    bufferName,
    bufferContent: renderEnvScript(session.env),
  });
}
