import { randomUUID } from "node:crypto";
import { realpath, stat } from "node:fs/promises";
import { isAbsolute, resolve } from "node:path";
import { installAssets } from "../adapters/assets.ts";
import { readJsonOrFile } from "../adapters/files.ts";
import { layOutHome, readHomeSources, removeHomePaths } from "../adapters/provider-home.ts";
import { watchDir } from "../adapters/watch.ts";
import {
  AbortedError,
  BinaryNotFoundError,
  InputRequiredError,
  SpawnFailedError,
  UmbelError,
  UsageError,
} from "../core/errors.ts";
import { mergeMcpConfigs } from "../core/mcp-config.ts";
import type { Meta } from "../core/meta.ts";
import { getProvider } from "../core/providers/registry.ts";
import type { LaunchFlag, Provider } from "../core/providers/types.ts";
import type { SpawnInput } from "../core/schemas.ts";
import { shellQuote } from "../core/shell.ts";
import { buildWorkerEnv, renderEnvScript } from "../core/worker-env.ts";
import type { Deps } from "./context.ts";
import { deadPaneScreen, readEvents, screenTail } from "./worker.ts";

export type SpawnResult = {
  name: string;
  provider: string;
  cwd: string;
  sessionId: string;
  state: "ready";
  elapsedMs: number;
  dialogsAnswered: string[];
};

const DEFAULT_START_TIMEOUT_MS = 60_000;
/** Keys sent less than ~0.15 s after claude's trust dialog appears are dropped; wait a bit more. */
const DIALOG_SETTLE_MS = 300;
const DIALOG_RETRY_MS = 1500;
const PANE = { width: 160, height: 50 } as const;

/**
 * Creates a worker and returns when its TUI is ready. Everything is validated before any I/O; any
 * failure after the name is claimed unwinds the tmux session, the buffer and the session directory.
 */
export async function spawnWorker(deps: Deps, input: SpawnInput): Promise<SpawnResult> {
  const started = deps.clock.now();
  const { meta, provider, unwind } = await launchWorker(deps, input);
  try {
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
      cwd: meta.cwd,
      sessionId: meta.sessionId,
      state: "ready",
      elapsedMs: deps.clock.now() - started,
      dialogsAnswered,
    };
  } catch (error) {
    await unwind();
    throw error;
  }
}

/** A worker whose CLI is started in tmux; its TUI may still be on a startup screen. */
export type LaunchedWorker = {
  readonly meta: Meta;
  readonly provider: Provider;
  /** Removes what the launch made: the session, the env buffer, the provider files, the directory. */
  unwind(): Promise<void>;
};

/**
 * spawn up to the wait for ready: validates, claims the name, lays out the provider's home, writes
 * meta.json ("starting") and starts the CLI. A failure unwinds what it made; once it returns, the
 * caller owns `unwind` (the integration tests watch startup screens from here).
 */
export async function launchWorker(deps: Deps, input: SpawnInput): Promise<LaunchedWorker> {
  const provider = getProvider(input.provider);
  const cwd = await resolveCwd(deps, input.cwd);
  const addDirs = await resolveAddDirs(input.addDir, cwd);
  const root = deps.store.root;
  const paths = deps.store.paths(input.name);
  // claude --resume keeps the session id it resumes.
  const sessionId = input.resumeSession ?? randomUUID();
  const bin = resolveBinary(deps, provider);
  const unattended = input.unattended === true;
  const mcpServers = input.mcpConfig ? await readMcpServers(input.mcpConfig, cwd) : undefined;
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
  const bufferName = `umbel-env-${input.name}-${randomUUID().slice(0, 8)}`;
  const homeMade: string[] = [];
  const unwind = async () => {
    await unwindSession(deps, input.name, bufferName);
    await removeHomePaths(homeMade);
  };
  try {
    const assets = await installAssets(root);
    const hookCommand = `sh ${shellQuote(assets.hook)} ${shellQuote(paths.hooksLog)}`;
    let providerHome: string | undefined;
    let providerFiles: readonly string[] = [];
    if (provider.planHome) {
      const context = {
        stateRoot: await realpath(root),
        sessionDir: await realpath(paths.dir),
        worker: input.name,
        cwd: await realpath(cwd),
        hookCommand,
        eventsLog: paths.hooksLog,
        hostEnv: deps.env,
        workerEnvNames: Object.keys(probeEnv),
        launch: {
          systemPrompt: input.systemPrompt,
          appendSystemPrompt: input.appendSystemPrompt,
          disallowedTools: input.disallowedTools,
          mcpServers,
        },
      };
      const reads = provider.homeReads ? await readHomeSources(provider.homeReads(context)) : {};
      const home = provider.planHome(context, reads);
      homeMade.push(...(await layOutHome(home.entries)));
      providerHome = home.home;
      providerFiles = home.removeOnKill;
    }
    const plan = provider.planLaunch({
      bin,
      sessionId,
      worker: input.name,
      providerHome,
      hookCommand,
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
    });
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
    return { meta, provider, unwind };
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
  ];
  return given.flatMap(([flag, value]) => (value ? [flag] : []));
}

/** Each --mcp-config is JSON text or a file (relative to the worker's cwd); read and merged. */
async function readMcpServers(values: readonly string[], cwd: string): Promise<Record<string, unknown>> {
  const configs = [];
  for (const value of values) {
    const { path, text } = await readJsonOrFile(value, cwd);
    if (text === null) throw new UsageError(`--mcp-config ${path}: file not found`, { path });
    configs.push({ source: path ?? "(inline JSON)", text });
  }
  return mergeMcpConfigs(configs);
}

/** --add-dir folders, absolute (relative to the worker's cwd); a missing one is a usage error. */
async function resolveAddDirs(
  dirs: readonly string[] | undefined,
  cwd: string,
): Promise<string[] | undefined> {
  if (dirs === undefined) return undefined;
  const out: string[] = [];
  for (const dir of dirs) {
    out.push(await requireDirectory("--add-dir", isAbsolute(dir) ? dir : resolve(cwd, dir), "path"));
  }
  return out;
}

async function resolveCwd(deps: Deps, cwd: string | undefined): Promise<string> {
  const path = cwd === undefined ? deps.cwd : isAbsolute(cwd) ? cwd : resolve(deps.cwd, cwd);
  return requireDirectory("--cwd", path, "cwd");
}

/** `path` when it is a directory; else a usage error naming the flag (its data keyed by `key`). */
async function requireDirectory(flag: string, path: string, key: string): Promise<string> {
  const info = await stat(path).catch(() => null);
  if (!info?.isDirectory()) throw new UsageError(`${flag} ${path} is not a directory`, { [key]: path });
  return path;
}

function resolveBinary(deps: Deps, provider: Provider): string {
  const wanted = deps.env[provider.binEnv] || provider.defaultBin;
  const found = Bun.which(wanted, { PATH: deps.env.PATH ?? "", cwd: deps.cwd });
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

/**
 * Polls the screen (tmux has no change notification) and wakes early on hook events. Ready means the
 * provider's idle screen AND its SessionStart hook: a TUI whose hooks do not fire cannot prove
 * delivery, so that is a failure, not a ready worker.
 */
async function waitReady(deps: Deps, provider: Provider, name: string, timeoutMs: number): Promise<string[]> {
  const deadline = deps.clock.now() + timeoutMs;
  const waker = watchDir(deps.store.paths(name).events);
  const answered: string[] = [];
  let dialogSeen = null as DialogSeen | null;
  let readySince: number | null = null;
  let screen: string | null = "";
  try {
    for (;;) {
      if (deps.signal?.aborted)
        throw new AbortedError("spawn was interrupted; the worker was removed", { name });
      const exit = await deps.store.readExit(name);
      if (exit) throw await deadOnStart(deps, provider, name, exit.exitCode ?? null);
      const pane = await deps.tmux.paneInfo(name);
      if (pane === null || pane.dead) throw await deadOnStart(deps, provider, name, pane?.deadStatus ?? null);
      screen = await deps.tmux.capture(name);
      const now = deps.clock.now();
      const state = provider.classifyScreen(screen ?? "");
      if (state.kind === "dialog") {
        readySince = null;
        if (state.fatal)
          throw new SpawnFailedError(`${state.fatal}:\n${screenTail(screen)}`, {
            name,
            screen: screenTail(screen),
          });
        if (dialogSeen?.dialog !== state.dialog)
          dialogSeen = { dialog: state.dialog, at: now, answeredAt: null, tries: 0 };
        const due =
          dialogSeen.answeredAt === null
            ? now - dialogSeen.at >= DIALOG_SETTLE_MS
            : now - dialogSeen.answeredAt >= DIALOG_RETRY_MS;
        if (due) {
          if (dialogSeen.tries >= 3) {
            throw new SpawnFailedError(`the ${state.dialog} dialog did not accept umbel's answer`, {
              name,
              screen: screenTail(screen),
            });
          }
          await deps.tmux.sendKeys(name, state.keys);
          dialogSeen.answeredAt = now;
          dialogSeen.tries++;
          if (!answered.includes(state.dialog)) answered.push(state.dialog);
        }
      } else if (state.kind === "sign-in") {
        throw new InputRequiredError(
          `${provider.displayName} is not signed in; run it once by hand to log in`,
          {
            name,
            screen: state.text,
          },
        );
      } else if (state.kind === "exited") {
        throw new SpawnFailedError(`${provider.displayName} refused to start:\n${state.text}`, {
          name,
          screen: state.text,
        });
      } else if (state.kind === "ready") {
        readySince ??= now;
        // codex fires SessionStart at the first prompt: its status line is all there is to see.
        if (provider.sessionStartAtLaunch === false) return answered;
        const events = await readEvents(deps, name);
        if (events.some((e) => provider.interpretEvent(e).kind === "session-start")) return answered;
        if (now - readySince > 10_000) {
          throw new SpawnFailedError(
            `${provider.displayName} is up but its hooks never fired; umbel cannot follow it`,
            {
              name,
              screen: screenTail(screen),
            },
          );
        }
      } else {
        readySince = null;
      }
      if (now >= deadline) {
        throw new SpawnFailedError(`${provider.displayName} was not ready within ${timeoutMs} ms`, {
          name,
          screen: screenTail(screen),
        });
      }
      await waker.next(100, deps.signal);
    }
  } catch (error) {
    if (error instanceof UmbelError) throw error;
    throw new SpawnFailedError(`spawn failed: ${(error as Error).message}`, { name }, { cause: error });
  } finally {
    waker.close();
  }
}

type DialogSeen = { dialog: string; at: number; answeredAt: number | null; tries: number };

async function deadOnStart(
  deps: Deps,
  provider: Provider,
  name: string,
  exitCode: number | null,
): Promise<UmbelError> {
  const screen = screenTail(await deadPaneScreen(deps, name));
  // tmux marks a pane dead at the pty's EOF, before it reaps the child: its status can still be
  // blank. The wrapper wrote exit.json before it exited, so by now the record is there.
  exitCode ??= (await deps.store.readExit(name).catch(() => null))?.exitCode ?? null;
  return new SpawnFailedError(
    `${provider.displayName} exited during startup${exitCode === null ? "" : ` with status ${exitCode}`}${screen ? `:\n${screen}` : ""}`,
    { name, exitCode, screen },
  );
}
