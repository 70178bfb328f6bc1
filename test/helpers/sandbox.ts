import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDeps } from "../../src/adapters/deps.ts";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import type { Deps } from "../../src/core/ports.ts";

export const REPO = join(import.meta.dir, "..", "..");
export const UMBEL = join(REPO, "dist", "umbel");
const FAKE_CLAUDE = join(REPO, "test", "fixtures", "fake-claude.sh");
const FAKE_CODEX = join(REPO, "test", "fixtures", "fake-codex.sh");
const FAKE_GEMINI = join(REPO, "test", "fixtures", "fake-gemini.sh");
const FAKE_OPENCODE = join(REPO, "test", "fixtures", "fake-opencode.sh");

type RunResult = { code: number; stdout: string; stderr: string };

export type Sandbox = {
  readonly dir: string;
  /** The state root ($UMBEL_HOME): its own tmux server, invisible to every other sandbox. */
  readonly root: string;
  /** A working directory the fake trusts (unless created with untrusted: true). */
  readonly work: string;
  readonly cfg: string;
  readonly env: Record<string, string>;
  deps(signal?: AbortSignal): Deps;
  umbel(args: string[], options?: { stdin?: string; env?: Record<string, string> }): Promise<RunResult>;
  dispose(): Promise<void>;
};

/**
 * A throwaway state root, HOME, claude config dir and work dir; dispose kills its tmux server.
 * `tmuxTmpdir`: TMUX_TMPDIR is a folder of the sandbox's own (the socket is not in /tmp/tmux-UID).
 */
export async function createSandbox(
  options: { untrusted?: boolean; env?: Record<string, string>; tmuxTmpdir?: boolean } = {},
): Promise<Sandbox> {
  const dir = await mkdtemp(join(tmpdir(), "umbel-t-"));
  const root = join(dir, "state");
  const work = join(dir, "work");
  const cfg = join(dir, "cfg");
  await Promise.all([mkdir(work), mkdir(cfg), mkdir(join(dir, "home")), mkdir(join(dir, "tmp"))]);
  if (options.tmuxTmpdir) await mkdir(join(dir, "tmux"));
  if (!options.untrusted) await writeFile(join(cfg, "fake-trusted"), `${work}\n`);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    LANG: "C.UTF-8",
    HOME: join(dir, "home"),
    TMPDIR: join(dir, "tmp"),
    UMBEL_HOME: root,
    UMBEL_CLAUDE_BIN: FAKE_CLAUDE,
    UMBEL_CODEX_BIN: FAKE_CODEX,
    UMBEL_GEMINI_BIN: FAKE_GEMINI,
    UMBEL_OPENCODE_BIN: FAKE_OPENCODE,
    CLAUDE_CONFIG_DIR: cfg,
    ...(options.tmuxTmpdir ? { TMUX_TMPDIR: join(dir, "tmux") } : {}),
    // UMBEL_TRACE=/abs/file on a test run: every umbel the tests start appends its timeline there.
    ...(process.env.UMBEL_TRACE ? { UMBEL_TRACE: process.env.UMBEL_TRACE } : {}),
    ...options.env,
  };
  return {
    dir,
    root,
    work,
    cfg,
    env,
    deps: (signal) => createDeps(env, { cwd: work, ...(signal ? { signal } : {}) }),
    async umbel(args, opts = {}) {
      if (!existsSync(UMBEL))
        throw new Error("dist/umbel is missing: run `npm run build` (npm test does it)");
      const child = Bun.spawn([UMBEL, ...args], {
        cwd: work,
        env: { ...env, ...opts.env },
        stdin: opts.stdin === undefined ? "ignore" : new Blob([opts.stdin]),
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr] = await Promise.all([
        new Response(child.stdout).text(),
        new Response(child.stderr).text(),
      ]);
      return { code: await child.exited, stdout, stderr };
    },
    async dispose() {
      await createTmux({ socket: deriveSocket(root, undefined), hostEnv: env })
        .killServer()
        .catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** Polls until `check` returns a truthy value or the deadline passes (no sleeps in tests). */
export async function eventually<T>(
  check: () => Promise<T> | T,
  timeoutMs = 10_000,
  what = "condition",
): Promise<NonNullable<T>> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** Whether a process runs (a signal 0 reaches it). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
