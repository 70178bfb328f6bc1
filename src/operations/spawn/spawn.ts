import { isAbsolute, join, resolve } from "node:path";
import { quoteArg } from "../../core/common/quote.ts";
import { shellQuote } from "../../core/common/shell.ts";
import { BinaryNotFoundError, UsageError } from "../../core/errors.ts";
import { STRUCTURED_SERVER_NAME, structuredServer } from "../../core/guard/tool.ts";
import { type BillingRoute, billingEnvOf, billingFromEnv } from "../../core/limits/billing.ts";
import { STATUS_LINE_FILE } from "../../core/limits/telemetry.ts";
import type { PoolMeta } from "../../core/pool/pool.ts";
import type { Deps, Lock } from "../../core/ports.ts";
import type { LaunchFlag, LaunchInput, LaunchPlan } from "../../core/providers/launch-types.ts";
import { getProvider } from "../../core/providers/registry.ts";
import type { Provider } from "../../core/providers/types.ts";
import type { SpawnInput } from "../../core/schemas.ts";
import { mergeMcpConfigs } from "../../core/spawn/mcp-config.ts";
import { buildWorkerEnv, renderEnvScript } from "../../core/worker/env.ts";
import { INCARNATION_FILE } from "../../core/worker/events.ts";
import type { Meta } from "../../core/worker/meta.ts";
import type { SpawnResult } from "../../core/worker/outputs.ts";
import { OWNER_FILE, ownerLine } from "../../core/worker/owner.ts";
import { type SignInAdvice, signInAdvice } from "../../core/worker/sign-in.ts";
import { withConfiguredEnv } from "../../core/worker/user-config.ts";
import { checkFleetOptions, nativeAllowedTools, writeFleetFiles } from "../fleet/files.ts";
import { makeWorktree, planWorktree, unmakeWorktree } from "../fleet/worktree.ts";
import { awaitStructuredServer } from "../guard/structured-call.ts";
import { readJsonOrFile } from "../worker/json-or-file.ts";
import { loadUserConfig } from "../worker/user-config.ts";
import { waitReady } from "./await-ready.ts";
import { holdBootSlot } from "./boot-slot.ts";

export const DEFAULT_START_TIMEOUT_MS = 60_000;
const PANE = { width: 160, height: 50 } as const;

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
  input: SpawnInput,
  extra: SpawnExtra & { bootSlot?: boolean } = {},
): Promise<LaunchedWorker> {
  const { pool } = extra;
  const provider = getProvider(input.provider);
  let cwd = await resolveCwd(deps, input.cwd);
  const addDirs = await resolveAddDirs(deps, input.addDir, cwd);
  const root = deps.store.root;
  const paths = deps.store.paths(input.name);
  // claude --resume keeps the session id it resumes.
  const sessionId = input.resumeSession ?? deps.system.uuid();
  const bin = resolveBinary(deps, provider);
  const unattended = input.unattended === true;
  const mcpServers = input.mcpConfig ? await readMcpServers(deps, input.mcpConfig, cwd) : undefined;
  if (input.structured && mcpServers && STRUCTURED_SERVER_NAME in mcpServers)
    throw new UsageError(
      `--mcp-config: the server name "${STRUCTURED_SERVER_NAME}" is umbel's own with --structured; rename yours`,
      { name: STRUCTURED_SERVER_NAME },
    );
  // The user config's names for this provider (a container's CLAUDE_CODE_OAUTH_TOKEN), under --env.
  const userConfig = await loadUserConfig(deps);
  const explicitEnv = withConfiguredEnv(userConfig.config, provider.id, deps.env, input.env);
  const refused = provider.checkLaunchOptions?.({
    allowedTools: input.allowedTools,
    permissionMode: input.permissionMode,
    unattended,
    nonInteractive: input.nonInteractive,
    launchFlags: launchFlagsGiven(input),
    mcpServers,
    settings: input.settings,
    envNames: Object.keys(explicitEnv ?? {}),
  });
  if (refused) throw new UsageError(refused, { provider: provider.id });
  checkFleetOptions(provider, input);
  const allowedTools = nativeAllowedTools(provider, input);
  const worktree = input.worktree ? await planWorktree(deps, input.name, cwd, input.base) : null;
  // Validates --env (a missing {fromEnv}) before anything is made; rebuilt below with the plan's env.
  const probeEnv = buildWorkerEnv({
    host: deps.env,
    provider,
    providerEnv: {},
    explicit: explicitEnv,
    umbel: {},
  });

  // Everything is valid: wait for a boot slot (spawns of one provider start in waves).
  const timeoutMs = input.startTimeout ?? DEFAULT_START_TIMEOUT_MS;
  const bootSlot = extra.bootSlot ? await holdBootSlot(deps, provider.id, input.name, timeoutMs) : null;
  try {
    await deps.store.claim(input.name);
  } catch (error) {
    await bootSlot?.release();
    throw error;
  }
  const bufferName = `umbel-env-${input.name}-${deps.system.uuid().slice(0, 8)}`;
  const homeMade: string[] = [];
  let worktreeMade = false;
  const unwind = async () => {
    await unwindSession(deps, input.name, bufferName);
    await deps.home.remove(homeMade);
    if (worktree && worktreeMade) await unmakeWorktree(deps, worktree);
    await bootSlot?.release();
  };
  try {
    if (worktree) {
      // Only what this spawn made is unwound: an existing umbel/<name> branch may hold someone's work.
      await makeWorktree(deps, worktree);
      worktreeMade = true;
      cwd = worktree.cwd;
    }
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
      bin,
      sessionId,
      hookCommand,
      eventsLog: paths.hooksLog,
      model: input.model,
      permissionMode: input.permissionMode,
      allowedTools,
      unattended,
      nonInteractive: input.nonInteractive,
      isRoot: deps.uid === 0,
      resumeSessionId: input.resumeSession,
      continueSession: input.continueSession,
      disallowedTools: input.disallowedTools,
      systemPrompt: input.systemPrompt,
      appendSystemPrompt: input.appendSystemPrompt,
      addDirs,
      settings: input.settings,
      mcpConfig: input.mcpConfig,
      mcpServers,
      structuredServer: structured,
      onLimit: input.onLimit,
      statusLineCommand,
      sessionTrust: extra.sessionTrust === true,
    };
    let plan: LaunchPlan;
    let providerFiles: readonly string[] = [];
    let homeBilling: BillingRoute | undefined;
    if (provider.home) {
      const context = {
        stateRoot: await deps.files.realpath(root),
        sessionDir: await deps.files.realpath(paths.dir),
        worker: input.name,
        cwd: await deps.files.realpath(cwd),
        hookCommand,
        eventsLog: paths.hooksLog,
        eventsPlugin: assets.plugin,
        hostEnv: deps.env,
        workerEnvNames: Object.keys(probeEnv),
        launch: {
          systemPrompt: input.systemPrompt,
          appendSystemPrompt: input.appendSystemPrompt,
          disallowedTools: input.disallowedTools,
          mcpServers,
          structuredServer: structured,
          nonInteractive: input.nonInteractive,
          permissionMode: input.permissionMode,
          unattended,
          allowedTools,
        },
      };
      const home = provider.home.plan(context, await deps.home.read(provider.home.reads(context)));
      homeMade.push(...(await deps.home.layOut(home.entries)));
      providerFiles = home.removeOnKill;
      homeBilling = home.billing;
      plan = provider.planLaunch(launch, { path: home.home, worker: input.name });
    } else {
      plan = provider.planLaunch(launch);
    }
    const env = buildWorkerEnv({
      host: deps.env,
      provider,
      providerEnv: plan.env,
      explicit: explicitEnv,
      umbel: { UMBEL_HOME: root, UMBEL_SESSION: input.name },
    });
    const spawnerStart = await deps.system.processStart(deps.pid);
    const owner = extra.owned && spawnerStart !== null ? { pid: deps.pid, start: spawnerStart } : null;
    const meta: Meta = {
      version: 1,
      name: input.name,
      provider: provider.id,
      cwd,
      bin,
      sessionId,
      socket: deps.tmux.socket,
      createdAt: new Date(deps.clock.now()).toISOString(),
      envNames: Object.keys(explicitEnv ?? {}),
      state: "starting",
      // Where a process's start cannot be read, no spawner is recorded (never a false "gone").
      ...(spawnerStart === null ? {} : { spawner: { pid: deps.pid, start: spawnerStart } }),
      ...(owner ? { owner } : {}),
      ...(input.model ? { model: input.model } : {}),
      ...(input.permissionMode ? { permissionMode: input.permissionMode } : {}),
      ...(input.allowedTools ? { allowedTools: input.allowedTools } : {}),
      ...(unattended ? { unattended } : {}),
      ...(input.nonInteractive ? { nonInteractive: true } : {}),
      ...(structured ? { structured: true } : {}),
      ...(providerFiles.length > 0 ? { providerFiles: [...providerFiles] } : {}),
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
      // Names only: what reached the worker decides its route (status shows it).
      billing: homeBilling ?? billingFromEnv(billingEnvOf(provider), Object.keys(env)),
      // A warm pool's spare (core/pool/pool.ts): claimable once ready, while pool.spare exists.
      ...(pool ? { pool } : {}),
    };
    await deps.store.writeMeta(meta);
    await writeFleetFiles(deps, provider, input);
    // Before the wrapper starts: it watches the owner from its first second.
    if (owner) await deps.store.writeWorkerFile(input.name, OWNER_FILE, ownerLine(owner));
    await deps.tmux.newSession({
      name: input.name,
      cwd,
      ...PANE,
      command: [
        "sh",
        assets.launch,
        // A spare retires itself once idle this long (hooks/launch.sh keeps the timer).
        ...(pool ? ["--retire-after", String(Math.ceil(pool.ttlMs / 1000))] : []),
        ...(owner ? ["--owned"] : []),
        deps.tmux.socket,
        bufferName,
        paths.events,
        ...plan.argv,
      ],
      bufferName,
      bufferContent: renderEnvScript(env),
    });
    return {
      meta,
      provider,
      untrusted: await untrustedFolder(deps, [cwd, ...(addDirs ?? [])]),
      signInAdvice: signInAdvice({
        provider,
        hostEnv: deps.env,
        passed: Object.keys(explicitEnv ?? {}),
        configFile: userConfig.file ?? userConfig.home,
      }),
      dialogRecord: provider.dialogRecord?.(env) ?? null,
      unwind,
      bootSlot,
    };
  } catch (error) {
    await unwind();
    throw error;
  }
}

/** The optional launch flags given (a provider that does not honour one refuses it: never dropped silently). */
function launchFlagsGiven(input: SpawnInput): LaunchFlag[] {
  const given: [LaunchFlag, unknown][] = [
    ["--disallowed-tools", input.disallowedTools?.length],
    ["--system-prompt", input.systemPrompt],
    ["--append-system-prompt", input.appendSystemPrompt],
    ["--add-dir", input.addDir?.length],
    ["--settings", input.settings],
    ["--mcp-config", input.mcpConfig?.length],
    ["--continue", input.continueSession],
    ["--structured", input.structured],
  ];
  return given.flatMap(([flag, value]) => (value ? [flag] : []));
}

/** Each --mcp-config is JSON text or a file (relative to the worker's cwd); read and merged. */
async function readMcpServers(
  deps: Deps,
  values: readonly string[],
  cwd: string,
): Promise<Record<string, unknown>> {
  const configs = [];
  for (const value of values) {
    const { path, text } = await readJsonOrFile(deps.files, value, cwd);
    if (text === null)
      throw new UsageError(`--mcp-config ${quoteArg(path ?? value)}: file not found`, { path });
    configs.push({ source: path === null ? "(inline JSON)" : quoteArg(path, 200), text });
  }
  return mergeMcpConfigs(configs);
}

/** --add-dir folders, absolute (relative to the worker's cwd); a missing one is a usage error. */
export async function resolveAddDirs(
  deps: Deps,
  dirs: readonly string[] | undefined,
  cwd: string,
): Promise<string[] | undefined> {
  if (dirs === undefined) return undefined;
  const out: string[] = [];
  for (const dir of dirs) {
    out.push(await requireDirectory(deps, "--add-dir", isAbsolute(dir) ? dir : resolve(cwd, dir), "path"));
  }
  return out;
}

export async function resolveCwd(deps: Deps, cwd: string | undefined): Promise<string> {
  const path = cwd === undefined ? deps.cwd : isAbsolute(cwd) ? cwd : resolve(deps.cwd, cwd);
  return requireDirectory(deps, "--cwd", path, "cwd");
}

/** `path` when it is a directory; else a usage error naming the flag (its data keyed by `key`). */
async function requireDirectory(deps: Deps, flag: string, path: string, key: string): Promise<string> {
  if (!(await deps.files.isDirectory(path)))
    throw new UsageError(`${flag} ${quoteArg(path, 200)} is not a directory`, { [key]: path });
  // The real path: a symlink to / must not get / trusted under another name.
  return deps.files.realpath(path);
}

/** / or the home directory among the folders a CLI may ask to trust: umbel never trusts those itself. */
async function untrustedFolder(deps: Deps, folders: readonly string[]): Promise<string | null> {
  const home = deps.env.HOME ? await deps.files.realpath(deps.env.HOME).catch(() => deps.env.HOME) : null;
  return folders.find((folder) => folder === "/" || folder === home) ?? null;
}

export function resolveBinary(deps: Deps, provider: Provider): string {
  const wanted = deps.env[provider.binEnv] || provider.defaultBin;
  const found = deps.system.which(wanted, { PATH: deps.env.PATH ?? "", cwd: deps.cwd });
  if (!found) {
    throw new BinaryNotFoundError(
      `${provider.displayName} CLI not found: ${wanted} (install it, or set ${provider.binEnv} to its path)`,
      { bin: wanted, env: provider.binEnv },
    );
  }
  return found;
}

async function unwindSession(deps: Deps, name: string, bufferName: string): Promise<void> {
  await deps.tmux.killSession(name).catch(() => undefined);
  await deps.tmux.deleteBuffer(bufferName).catch(() => undefined);
  await deps.store.remove(name).catch(() => undefined);
}
