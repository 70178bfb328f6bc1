// A private HOME and a "user" CODEX_HOME (pointing codex at the stub model), a umbel state root,
// and a driver for one codex worker (real or fake) that the engine made: spawnWorker lays out the
// managed home and starts the session exactly as `umbel spawn` does. The driver then pastes, presses
// keys and reads hooks and screens itself, to test the provider's pure parts against the CLI.
import { chmodSync, existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createDeps } from "../../src/adapters/deps.ts";
import { shellQuote } from "../../src/core/common/shell.ts";
import type { Deps, TmuxPort as Tmux } from "../../src/core/ports.ts";
import { codex, prepareCodexPrompt } from "../../src/core/providers/codex/provider.ts";
import { classifyCodexScreen } from "../../src/core/providers/codex/screen.ts";
import type { HookEvent, ScreenState } from "../../src/core/providers/types.ts";
import { parseEvents } from "../../src/core/worker/events.ts";
import { launchWorker, spawnWorker } from "../../src/operations/spawn/spawn.ts";
import { killWorker } from "../../src/operations/worker/kill.ts";
import { eventually } from "./sandbox.ts";

export interface CodexWorld {
  home: string;
  /** The user's own CODEX_HOME (never handed to a worker): config.toml and auth.json. */
  userCodexHome: string;
  /** umbel's state root ($UMBEL_HOME): every worker of the world shares it, and one tmux server. */
  stateRoot: string;
  /** umbel's managed CODEX_HOME (`$UMBEL_HOME/codex-home`, symlink-resolved as spawn makes it). */
  managedHome: string;
  tmpDir: string;
}

/**
 * The stub as a custom Responses provider with no env_key (no Authorization header, no login
 * screen), retries off and a 2 s stream idle timeout so failures end fast (docs/providers.md, Codex).
 */
export function stubProviderToml(baseUrl: string): string {
  return [
    'model = "stub-model"',
    'model_provider = "stub"',
    "",
    "[model_providers.stub]",
    'name = "Stub"',
    `base_url = "${baseUrl}/v1"`,
    'wire_api = "responses"',
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "stream_idle_timeout_ms = 2000",
    "",
  ].join("\n");
}

/** The folders, and the user's config.toml and auth.json; the managed home exists (empty) for tests to seed. */
export function seedCodexWorld(dir: string, userConfig: string): CodexWorld {
  const world = {
    home: join(dir, "home"),
    userCodexHome: join(dir, "user-codex"),
    stateRoot: join(dir, "umbel"),
    tmpDir: join(dir, "tmp"),
  };
  for (const folder of Object.values(world)) mkdirSync(folder, { recursive: true, mode: 0o700 });
  mkdirSync(join(world.stateRoot, "codex-home"), { recursive: true, mode: 0o700 });
  writeFileSync(join(world.userCodexHome, "config.toml"), userConfig, { mode: 0o600 });
  writeFileSync(
    join(world.userCodexHome, "auth.json"),
    '{"auth_mode":"apikey","OPENAI_API_KEY":"sk-unused"}\n',
    {
      mode: 0o600,
    },
  );
  return { ...world, managedHome: realpathSync(join(world.stateRoot, "codex-home")) };
}

/** The environment of a codex child: nothing inherited but PATH (node runs bin/codex.js). */
export function codexEnv(world: CodexWorld, codexHome: string): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: world.home,
    CODEX_HOME: codexHome,
    TMPDIR: world.tmpDir,
    LANG: "C.UTF-8",
    TERM: "xterm-256color",
  };
}

export interface CodexDriver {
  tmux: Tmux;
  /** The engine's view of the world: status, kill, the store. */
  deps: Deps;
  readonly name: string;
  /** The events log the hooks append to. */
  readonly events: string;
  screen(): Promise<string>;
  hooks(from?: number): HookEvent[];
  /** Pastes the prepared prompt and presses Enter; returns the baseline (events before it). */
  send(prompt: string): Promise<number>;
  /** The first event named `hook` at or after `from`, waiting up to `timeoutMs`. */
  hookAfter(from: number, hook: string, timeoutMs?: number): Promise<HookEvent>;
  /** Polls the screen until the provider reads it as `kind` (returns that state). */
  until(kind: ScreenState["kind"], timeoutMs?: number): Promise<ScreenState>;
  /** umbel kill: the session, and the worker's profile in the managed home. */
  dispose(): Promise<void>;
}

/**
 * Spawns codex worker `name` (`bin`: the real codex or test/fixtures/fake-codex.sh) through the
 * engine. With `watchStartup` the engine only launches it (no dialog answered, no wait for ready):
 * the test watches the startup screens itself. `args` go after the engine's argv (through a
 * wrapper script, as umbel has no flag for them); `env` is the worker's explicit env (--env).
 */
export async function startCodex(
  world: CodexWorld,
  options: {
    bin: string;
    name: string;
    cwd: string;
    env?: Record<string, string>;
    args?: string[];
    /** `codex resume <id>` instead of a new thread. */
    resume?: string;
    watchStartup?: boolean;
  },
): Promise<CodexDriver> {
  const { name } = options;
  const bin = options.args?.length ? writeWrapper(world, name, options.bin, options.args) : options.bin;
  const deps = createDeps(
    {
      ...codexEnv(world, world.userCodexHome),
      UMBEL_HOME: world.stateRoot,
      UMBEL_CODEX_BIN: bin,
    },
    { cwd: options.cwd },
  );
  const input = {
    name,
    provider: "codex" as const,
    cwd: options.cwd,
    ...(options.resume ? { resumeSession: options.resume } : {}),
    ...(options.env ? { env: options.env } : {}),
  };
  if (options.watchStartup) await launchWorker(deps, input);
  else await spawnWorker(deps, input);
  const { tmux } = deps;
  const events = deps.store.paths(name).hooksLog;
  const log = () => (existsSync(events) ? readFileSync(events, "utf8") : "");
  const hooks = (from = 0) => parseEvents(codex, log(), from);
  const screen = async () => (await tmux.capture(name)) ?? "";
  return {
    tmux,
    deps,
    name,
    events,
    screen,
    hooks,
    async send(prompt) {
      const baseline = hooks().length;
      if (!(await tmux.paste(name, prepareCodexPrompt(prompt), `umbel-codex-${baseline}`)))
        throw new Error(`send: the paste found no session ${name}`);
      if (!(await tmux.sendKeys(name, ["Enter"]))) throw new Error(`send: Enter found no session ${name}`);
      return baseline;
    },
    hookAfter: (from, hook, timeoutMs = 15_000) =>
      eventually(() => hooks(from).find((e) => e.name === hook), timeoutMs, `the ${hook} hook`),
    async until(kind, timeoutMs = 15_000) {
      let last = "";
      try {
        return await eventually(
          async () => {
            last = await screen();
            const state = classifyCodexScreen(last);
            return state.kind === kind ? state : null;
          },
          timeoutMs,
          `a ${kind} screen`,
        );
      } catch (error) {
        // A CI log is often all there is: the screen last seen, and the hooks so far.
        const hooksSeen = hooks()
          .map((e) => e.name)
          .join(" ");
        throw new Error(`${String(error)}; hooks: ${hooksSeen}; last screen:\n${last}`);
      }
    },
    dispose: async () => {
      await killWorker(deps, { name });
    },
  };
}

/** `bin` with `args` after the engine's own: a later `-p` wins, so a test can drop the worker's profile. */
function writeWrapper(world: CodexWorld, name: string, bin: string, args: readonly string[]): string {
  const path = join(world.tmpDir, `codex-${name}`);
  writeFileSync(path, `#!/bin/sh\nexec ${shellQuote(bin)} "$@" ${args.map(shellQuote).join(" ")}\n`);
  chmodSync(path, 0o755);
  return path;
}
