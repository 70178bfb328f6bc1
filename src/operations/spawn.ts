import { isAbsolute, resolve } from "node:path";
import { BinaryNotFoundError, SpawnFailedError, UmbelError, UsageError } from "../core/errors.ts";
import { mergeMcpConfigs } from "../core/mcp-config.ts";
import type { Meta } from "../core/meta.ts";
import type { SpawnResult } from "../core/outputs.ts";
import type { Deps, Waker } from "../core/ports.ts";
import type { LaunchFlag, LaunchInput, LaunchPlan } from "../core/providers/launch-types.ts";
import { getProvider } from "../core/providers/registry.ts";
import type { Provider } from "../core/providers/types.ts";
import { type ReadyCommand, type ReadyObservation, startReady, stepReady } from "../core/ready.ts";
import type { SpawnInput } from "../core/schemas.ts";
import { shellQuote } from "../core/shell.ts";
import { buildWorkerEnv, renderEnvScript } from "../core/worker-env.ts";
import { readJsonOrFile } from "./json-or-file.ts";
import { DEAD_SCROLLBACK } from "./worker.ts";

const DEFAULT_START_TIMEOUT_MS = 60_000;
const PANE = { width: 160, height: 50 } as const;

/**
 * Creates a worker and returns when its TUI is ready. Everything is validated before any I/O; any
 * failure after the name is claimed unwinds the tmux session, the buffer and the session directory.
 */
export async function spawnWorker(deps: Deps, input: SpawnInput): Promise<SpawnResult> {
  const started = deps.clock.now();
  const provider = getProvider(input.provider);
  const cwd = await resolveCwd(deps, input.cwd);
  const addDirs = await resolveAddDirs(deps, input.addDir, cwd);
  const root = deps.store.root;
  const paths = deps.store.paths(input.name);
  // claude --resume keeps the session id it resumes.
  const sessionId = input.resumeSession ?? deps.system.uuid();
  const bin = resolveBinary(deps, provider);
  const unattended = input.unattended === true;
  const mcpServers = input.mcpConfig ? await readMcpServers(deps, input.mcpConfig, cwd) : undefined;
  const refused = provider.checkLaunchOptions?.({
    allowedTools: input.allowedTools,
    permissionMode: input.permissionMode,
    unattended,
    launchFlags: launchFlagsGiven(input),
    mcpServers,
  });
  if (refused) throw new UsageError(refused, { provider: provider.id });
  // Validates --env (a missing {fromEnv}) before anything is made; rebuilt below with the plan's env.
  const probeEnv = buildWorkerEnv({
    host: deps.env,
    provider,
    providerEnv: {},
    explicit: input.env,
    umbel: {},
  });

  await deps.store.claim(input.name);
  const bufferName = `umbel-env-${input.name}-${deps.system.uuid().slice(0, 8)}`;
  const homeMade: string[] = [];
  try {
    const assets = await deps.system.installAssets(root);
    const hookCommand = `sh ${shellQuote(assets.hook)} ${shellQuote(paths.hooksLog)}`;
    const launch: LaunchInput = {
      bin,
      sessionId,
      hookCommand,
      eventsLog: paths.hooksLog,
      model: input.model,
      permissionMode: input.permissionMode,
      allowedTools: input.allowedTools,
      unattended,
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
    };
    let plan: LaunchPlan;
    let providerFiles: readonly string[] = [];
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
        },
      };
      const home = provider.home.plan(context, await deps.home.read(provider.home.reads(context)));
      homeMade.push(...(await deps.home.layOut(home.entries)));
      providerFiles = home.removeOnKill;
      plan = provider.planLaunch(launch, { path: home.home, worker: input.name });
    } else {
      plan = provider.planLaunch(launch);
    }
    const meta: Meta = {
      version: 1,
      name: input.name,
      provider: provider.id,
      cwd,
      bin,
      sessionId,
      socket: deps.tmux.socket,
      createdAt: new Date(deps.clock.now()).toISOString(),
      envNames: Object.keys(input.env ?? {}),
      state: "starting",
      ...(input.model ? { model: input.model } : {}),
      ...(input.permissionMode ? { permissionMode: input.permissionMode } : {}),
      ...(input.allowedTools ? { allowedTools: input.allowedTools } : {}),
      ...(unattended ? { unattended } : {}),
      ...(providerFiles.length > 0 ? { providerFiles: [...providerFiles] } : {}),
    };
    await deps.store.writeMeta(meta);
    const env = buildWorkerEnv({
      host: deps.env,
      provider,
      providerEnv: plan.env,
      explicit: input.env,
      umbel: { UMBEL_HOME: root, UMBEL_SESSION: input.name },
    });
    await deps.tmux.newSession({
      name: input.name,
      cwd,
      ...PANE,
      command: ["sh", assets.launch, deps.tmux.socket, bufferName, paths.events, ...plan.argv],
      bufferName,
      bufferContent: renderEnvScript(env),
    });
    const dialogsAnswered = await waitReady(
      deps,
      provider,
      input.name,
      input.startTimeout ?? DEFAULT_START_TIMEOUT_MS,
    );
    await deps.store.writeMeta({
      ...meta,
      state: "ready",
      readyAt: new Date(deps.clock.now()).toISOString(),
    });
    return {
      name: input.name,
      provider: provider.id,
      cwd,
      sessionId,
      state: "ready",
      elapsedMs: deps.clock.now() - started,
      dialogsAnswered,
    };
  } catch (error) {
    await unwind(deps, input.name, bufferName);
    await deps.home.remove(homeMade);
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
    if (text === null) throw new UsageError(`--mcp-config ${path}: file not found`, { path });
    configs.push({ source: path ?? "(inline JSON)", text });
  }
  return mergeMcpConfigs(configs);
}

/** --add-dir folders, absolute (relative to the worker's cwd); a missing one is a usage error. */
async function resolveAddDirs(
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

async function resolveCwd(deps: Deps, cwd: string | undefined): Promise<string> {
  const path = cwd === undefined ? deps.cwd : isAbsolute(cwd) ? cwd : resolve(deps.cwd, cwd);
  return requireDirectory(deps, "--cwd", path, "cwd");
}

/** `path` when it is a directory; else a usage error naming the flag (its data keyed by `key`). */
async function requireDirectory(deps: Deps, flag: string, path: string, key: string): Promise<string> {
  if (!(await deps.files.isDirectory(path)))
    throw new UsageError(`${flag} ${path} is not a directory`, { [key]: path });
  return path;
}

function resolveBinary(deps: Deps, provider: Provider): string {
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

async function unwind(deps: Deps, name: string, bufferName: string): Promise<void> {
  await deps.tmux.killSession(name).catch(() => undefined);
  await deps.tmux.deleteBuffer(bufferName).catch(() => undefined);
  await deps.store.remove(name).catch(() => undefined);
}

/**
 * Drives the readiness machine (core/ready.ts): polls the screen (tmux has no change notification)
 * and wakes early on hook events. Ready means the provider's idle screen AND its SessionStart hook: a
 * TUI whose hooks do not fire cannot prove delivery, so that is a failure, not a ready worker.
 */
async function waitReady(deps: Deps, provider: Provider, name: string, timeoutMs: number): Promise<string[]> {
  let state = startReady({ provider, name, deadline: deps.clock.now() + timeoutMs, timeoutMs });
  const waker = deps.watch.dir(deps.store.paths(name).events);
  try {
    let seen = observe(deps, { kind: "tick" });
    for (;;) {
      const step = stepReady(state, seen);
      state = step.state;
      if (step.next.kind === "ready") return [...step.next.dialogsAnswered];
      if (step.next.kind === "fail") throw step.next.error;
      seen = await performReady(deps, name, waker, step.next);
    }
  } catch (error) {
    if (error instanceof UmbelError) throw error;
    throw new SpawnFailedError(`spawn failed: ${(error as Error).message}`, { name }, { cause: error });
  } finally {
    waker.close();
  }
}

type ReadySeen = ReadyObservation extends infer O
  ? O extends ReadyObservation
    ? Omit<O, "now" | "aborted">
    : never
  : never;

function observe(deps: Deps, seen: ReadySeen): ReadyObservation {
  return { ...seen, now: deps.clock.now(), aborted: deps.signal?.aborted === true } as ReadyObservation;
}

async function performReady(
  deps: Deps,
  name: string,
  waker: Waker,
  command: Exclude<ReadyCommand, { kind: "ready" | "fail" }>,
): Promise<ReadyObservation> {
  switch (command.kind) {
    case "read-exit":
      return observe(deps, { kind: "exit", exit: await deps.store.readExit(name) });
    case "read-log":
      return observe(deps, { kind: "log", log: await deps.store.readHooksLog(name) });
    case "probe": {
      const pane = deps.tmux.paneInfo(name);
      return observe(deps, {
        kind: "pane",
        pane: command.tolerant ? await pane.catch(() => null) : await pane,
      });
    }
    case "capture": {
      if (!command.scrollback)
        return observe(deps, { kind: "screen", screen: await deps.tmux.capture(name) });
      const screen = await deps.tmux.capture(name, { lines: DEAD_SCROLLBACK }).catch(() => null);
      return observe(deps, { kind: "screen", screen });
    }
    case "keys":
      await deps.tmux.sendKeys(name, command.keys);
      return observe(deps, { kind: "keys" });
    case "sleep":
      if (command.wake) await waker.next(command.ms, deps.signal);
      else await deps.clock.sleep(command.ms);
      return observe(deps, { kind: "tick" });
  }
}
