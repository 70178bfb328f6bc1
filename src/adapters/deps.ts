import { join } from "node:path";
import { parseDuration } from "../core/duration.ts";
import type { Clock, Deps } from "../core/ports.ts";
import { installAssets } from "./assets.ts";
import { fileSystem } from "./files.ts";
import { createGuardStore } from "./guard-store.ts";
import { processStart } from "./process-start.ts";
import { layOutHome, readHomeSources, removeHomePaths } from "./provider-home.ts";
import { runCheck } from "./run-check.ts";
import { createRuns } from "./run-store.ts";
import { createStore, resolveStateRoot } from "./state.ts";
import { tailFile } from "./tail.ts";
import { createTmux, deriveSocket } from "./tmux.ts";
import { watchDir } from "./watch.ts";

/** Every tmux call is bounded; a healthy one answers in milliseconds. UMBEL_TMUX_TIMEOUT overrides. */
const DEFAULT_TMUX_TIMEOUT_MS = 10_000;

const systemClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
      function done() {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        resolve();
      }
    }),
};

/**
 * The compiled binary runs itself; from source (tests, `bun src/main.ts`) it is bun with main.ts
 * (a compiled binary's own modules live under /$bunfs/).
 */
function selfCommand(): readonly string[] {
  if (import.meta.dir.startsWith("/$bunfs")) return [process.execPath];
  return [process.execPath, join(import.meta.dir, "..", "main.ts")];
}

/** The real ports, built once by main.ts (and by tests that drive real tmux). */
export function createDeps(
  env: Readonly<Record<string, string | undefined>>,
  options: { cwd?: string; signal?: AbortSignal } = {},
): Deps {
  const root = resolveStateRoot(env);
  const store = createStore(root);
  return {
    store,
    tmux: createTmux({
      socket: deriveSocket(root, env.UMBEL_TMUX_SOCKET),
      hostEnv: env,
      timeoutMs: parseDuration(env.UMBEL_TMUX_TIMEOUT ?? "") ?? DEFAULT_TMUX_TIMEOUT_MS,
    }),
    files: fileSystem,
    watch: { dir: watchDir, tail: tailFile },
    home: { read: readHomeSources, layOut: layOutHome, remove: removeHomePaths },
    runs: createRuns(root),
    guards: createGuardStore(store),
    checks: { run: runCheck },
    system: {
      which: (bin, where) => Bun.which(bin, where),
      uuid: () => crypto.randomUUID(),
      installAssets,
      processStart,
      selfCommand,
    },
    clock: systemClock,
    env,
    cwd: options.cwd ?? process.cwd(),
    uid: typeof process.getuid === "function" ? process.getuid() : 1000,
    pid: process.pid,
    signal: options.signal,
  };
}
