// A private HOME and a "user" CODEX_HOME (pointing codex at the stub model), the I/O that lays out
// umbel's managed home from planCodexHome, and a driver that runs codex (real or fake) in tmux the
// way umbel's spawn/send do (src/operations; this driver tests the provider's pure parts directly).
import { existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createTmux } from "../../src/adapters/tmux.ts";
import { parseEvents } from "../../src/core/events.ts";
import type { TmuxPort as Tmux } from "../../src/core/ports.ts";
import { type CodexHomePlan, planCodexHome } from "../../src/core/providers/codex/home.ts";
import { codex, planCodexLaunch, prepareCodexPrompt } from "../../src/core/providers/codex/provider.ts";
import { classifyCodexScreen } from "../../src/core/providers/codex/screen.ts";
import type { HookEvent, ScreenState } from "../../src/core/providers/types.ts";
import { eventually, REPO } from "./sandbox.ts";

export interface CodexWorld {
  home: string;
  /** The user's own CODEX_HOME (never handed to a worker): config.toml and auth.json. */
  userCodexHome: string;
  /** umbel's managed CODEX_HOME. */
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

export function seedCodexWorld(dir: string, userConfig: string): CodexWorld {
  const world = {
    home: join(dir, "home"),
    userCodexHome: join(dir, "user-codex"),
    managedHome: join(dir, "umbel", "codex-home"),
    tmpDir: join(dir, "tmp"),
  };
  for (const folder of Object.values(world)) mkdirSync(folder, { recursive: true, mode: 0o700 });
  writeFileSync(join(world.userCodexHome, "config.toml"), userConfig, { mode: 0o600 });
  writeFileSync(
    join(world.userCodexHome, "auth.json"),
    '{"auth_mode":"apikey","OPENAI_API_KEY":"sk-unused"}\n',
    {
      mode: 0o600,
    },
  );
  return { ...world, managedHome: realpathSync(world.managedHome) };
}

/** Lays out the managed home for one worker, as spawn will: dirs, files (0600), existing links. */
export function writeManagedHome(
  world: CodexWorld,
  worker: string,
  cwd: string,
  hookCommand: string,
): CodexHomePlan {
  const plan = planCodexHome({
    home: world.managedHome,
    userHome: world.userCodexHome,
    userConfig: readFileSync(join(world.userCodexHome, "config.toml"), "utf8"),
    worker,
    cwd: realpathSync(cwd),
    hookCommand,
  });
  for (const dir of plan.dirs) mkdirSync(dir, { recursive: true, mode: 0o700 });
  for (const file of plan.files) writeFileSync(file.path, file.content, { mode: file.mode });
  for (const link of plan.links)
    if (existsSync(link.target) && !existsSync(link.path)) symlinkSync(link.target, link.path);
  return plan;
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
  dispose(): Promise<void>;
}

/**
 * Starts `bin` (the real codex or test/fixtures/fake-codex.sh) in tmux on a private socket with
 * the managed home laid out for worker `name`, the way umbel's spawn will: planCodexHome's files,
 * planCodexLaunch's argv and env, and hooks/hook.sh appending to `<dir>/events/hooks.jsonl`.
 */
export async function startCodex(
  world: CodexWorld,
  options: {
    bin: string;
    name: string;
    cwd: string;
    dir: string;
    env?: Record<string, string>;
    args?: string[];
    /** `codex resume <id>` instead of a new thread. */
    resume?: string;
  },
): Promise<CodexDriver> {
  const { name } = options;
  const events = join(options.dir, "events", "hooks.jsonl");
  mkdirSync(join(options.dir, "events"), { recursive: true });
  writeManagedHome(world, name, options.cwd, `sh ${join(REPO, "hooks", "hook.sh")} ${events}`);
  const launch = planCodexLaunch(
    { bin: options.bin, sessionId: "unused", hookCommand: "", isRoot: true, resumeSessionId: options.resume },
    { path: world.managedHome, worker: name },
  );
  const env = { ...codexEnv(world, world.managedHome), ...launch.env, ...options.env };
  const tmux = createTmux({ socket: `umbel-codex-${process.pid}-${name}`, hostEnv: process.env });
  await tmux.newSession({
    name,
    cwd: options.cwd,
    width: 120,
    height: 40,
    command: [
      "env",
      "-i",
      ...Object.entries(env).map(([k, v]) => `${k}=${v}`),
      ...launch.argv,
      ...(options.args ?? []),
    ],
    bufferName: "umbel-codex-env",
    bufferContent: "unused\n",
  });
  const log = () => (existsSync(events) ? readFileSync(events, "utf8") : "");
  const hooks = (from = 0) => parseEvents(codex, log(), from);
  const screen = async () => (await tmux.capture(name)) ?? "";
  return {
    tmux,
    name,
    events,
    screen,
    hooks,
    async send(prompt) {
      const baseline = hooks().length;
      await tmux.paste(name, prepareCodexPrompt(prompt), `umbel-codex-${baseline}`);
      await tmux.sendKeys(name, ["Enter"]);
      return baseline;
    },
    hookAfter: (from, hook, timeoutMs = 15_000) =>
      eventually(() => hooks(from).find((e) => e.name === hook), timeoutMs, `the ${hook} hook`),
    async until(kind, timeoutMs = 15_000) {
      return eventually(
        async () => {
          const state = classifyCodexScreen(await screen());
          return state.kind === kind ? state : null;
        },
        timeoutMs,
        `a ${kind} screen`,
      );
    },
    dispose: () => tmux.killServer(),
  };
}
