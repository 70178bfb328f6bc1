// A throwaway world for the real gemini CLI (or test/fixtures/fake-gemini.sh): HOME, a work dir and
// a umbel state root whose workers the engine makes (spawnWorker: the worker's GEMINI_CLI_HOME,
// hooks, hooks/launch.sh and the env buffer, exactly as `umbel spawn`). The driver then pastes,
// presses keys and reads hooks, screens and transcripts itself, to test the pure gemini provider.
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { installAssets } from "../../src/adapters/assets.ts";
import { createDeps } from "../../src/adapters/deps.ts";
import { layOutHome, readHomeSources } from "../../src/adapters/spawn/home.ts";
import { shellQuote } from "../../src/core/common/shell.ts";
import type { Deps, TmuxPort as Tmux } from "../../src/core/ports.ts";
import { gemini } from "../../src/core/providers/gemini/provider.ts";
import { countEvents, parseEvents } from "../../src/core/worker/events.ts";
import { launchWorker, spawnWorker } from "../../src/operations/spawn/spawn.ts";

export const STUB_KEY = "stub-gemini-key-0123456789";

type StartOptions = {
  readonly model?: string;
  /** The worker's explicit env (`--env`): it wins over the provider's own. */
  readonly env?: Record<string, string>;
  /** Arguments after the engine's argv (a wrapper script: umbel has no flag for them). */
  readonly args?: readonly string[];
  /** Launch only (no dialog answered, no wait for ready): the test watches the startup screens. */
  readonly watchStartup?: boolean;
};

export interface GeminiWorld {
  readonly dir: string;
  readonly work: string;
  /** $HOME: gemini must leave it empty (everything goes to GEMINI_CLI_HOME). */
  readonly home: string;
  /** The last started worker's GEMINI_CLI_HOME (the `gemini -p` home before any). */
  readonly geminiHome: string;
  /** The last started worker's events log. */
  readonly eventsLog: string;
  readonly tmux: Tmux;
  readonly deps: Deps;
  /** The env of a `gemini -p` child beside the workers: nothing inherited but PATH. */
  env(extra?: Record<string, string>): Record<string, string>;
  /** Spawns worker `name` through the engine; returns the session id it launched with. */
  start(name: string, options?: StartOptions): Promise<{ sessionId: string }>;
  /** Per worker (default: the last started). */
  homeOf(name?: string): string;
  events(name?: string): ReturnType<typeof parseEvents>;
  eventCount(name?: string): number;
  transcript(name?: string): string;
  /** launch.sh's record of how the CLI ended, or null while it runs. */
  exit(name?: string): { exitCode?: number; signal?: string } | null;
  dispose(): Promise<void>;
}

/** `stubUrl` null: no model endpoint (the fake needs none). */
export async function createGeminiWorld(bin: string, stubUrl: string | null): Promise<GeminiWorld> {
  const dir = await mkdtemp(join(tmpdir(), "umbel-gemini-"));
  const work = join(dir, "work");
  const home = join(dir, "home");
  const root = join(dir, "state");
  await Promise.all([mkdir(work), mkdir(home), mkdir(root), mkdir(join(dir, "tmp"))]);
  const host: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    TMPDIR: join(dir, "tmp"),
    LANG: "C.UTF-8",
    GEMINI_API_KEY: STUB_KEY,
    ...(stubUrl === null ? {} : { GOOGLE_GEMINI_BASE_URL: stubUrl }),
  };
  const deps = createDeps({ ...host, UMBEL_HOME: root }, { cwd: work });
  const printHome = await layOutPrintHome(deps, host);
  const started: string[] = [];
  const last = (name?: string) => name ?? started.at(-1) ?? "";
  const paths = (name?: string) => deps.store.paths(last(name));
  const homeOf = (name?: string) => (started.length === 0 && !name ? printHome : `${paths(name).dir}/gemini`);
  const events = (name?: string) => parseEvents(gemini, readText(paths(name).hooksLog));
  return {
    dir,
    work,
    home,
    get geminiHome() {
      return homeOf();
    },
    get eventsLog() {
      return paths().hooksLog;
    },
    tmux: deps.tmux,
    deps,
    env: (extra = {}) => ({
      ...host,
      GEMINI_CLI_HOME: printHome,
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      GEMINI_CLI_NO_RELAUNCH: "true",
      ...extra,
    }),
    async start(name, options = {}) {
      const wrapper = options.args?.length ? await writeWrapper(dir, name, bin, options.args) : bin;
      const env = { ...deps.env, UMBEL_GEMINI_BIN: wrapper };
      const input = {
        name,
        provider: "gemini" as const,
        ...(options.model ? { model: options.model } : {}),
        ...(options.env ? { env: options.env } : {}),
      };
      started.push(name);
      const engine = { ...deps, env };
      if (options.watchStartup) return { sessionId: (await launchWorker(engine, input)).meta.sessionId };
      return { sessionId: (await spawnWorker(engine, input)).sessionId };
    },
    homeOf,
    events,
    eventCount: (name) => countEvents(readText(paths(name).hooksLog)),
    transcript(name) {
      const path = events(name).findLast((e) => typeof e.payload.transcript_path === "string")?.payload
        .transcript_path;
      return typeof path === "string" ? readText(path) : "";
    },
    exit(name) {
      const text = readText(paths(name).exit);
      return text === "" ? null : (JSON.parse(text) as { exitCode?: number; signal?: string });
    },
    async dispose() {
      await deps.tmux.killServer().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The GEMINI_CLI_HOME of `gemini -p` runs beside the workers: planned by the gemini provider and
 * laid out by the engine, as spawn would for a worker named "print".
 */
async function layOutPrintHome(deps: Deps, host: Record<string, string>): Promise<string> {
  const sessionDir = join(deps.store.root, "print");
  const eventsLog = join(sessionDir, "events", "hooks.jsonl");
  await mkdir(join(sessionDir, "events"), { recursive: true });
  const assets = await installAssets(deps.store.root);
  const context = {
    stateRoot: await realpath(deps.store.root),
    sessionDir: await realpath(sessionDir),
    worker: "print",
    cwd: await realpath(deps.cwd),
    hookCommand: `sh ${shellQuote(assets.hook)} ${shellQuote(eventsLog)}`,
    eventsLog,
    hostEnv: host,
    workerEnvNames: Object.keys(host),
    launch: {},
  };
  const plan = gemini.home.plan(context, await readHomeSources(gemini.home.reads(context)));
  await layOutHome(plan.entries);
  return plan.home;
}

/** `bin` with `args` after the engine's own (a later `--session-id` wins in the fake). */
async function writeWrapper(
  dir: string,
  name: string,
  bin: string,
  args: readonly string[],
): Promise<string> {
  const path = join(dir, "tmp", `gemini-${name}`);
  await writeFile(path, `#!/bin/sh\nexec ${shellQuote(bin)} "$@" ${args.map(shellQuote).join(" ")}\n`);
  await chmod(path, 0o755);
  return path;
}

function readText(path: string): string {
  return existsSync(path) ? readFileSync(path, "utf8") : "";
}
