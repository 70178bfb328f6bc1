import { join } from "node:path";
import { clampTimerMs, parseDuration } from "../core/common/duration.ts";
import type { Clock, Deps, TracePort } from "../core/ports.ts";
import { installAssets } from "./assets.ts";
import { fileSystem } from "./files.ts";
import { createGit } from "./git.ts";
import { endCheck, runCheck } from "./guard/check.ts";
import { createGuardStore } from "./guard/store.ts";
import { createHost } from "./host.ts";
import { createSsh } from "./hosts/ssh.ts";
import { runOnTerminal, startDetached } from "./process.ts";
import { processStart } from "./process-start.ts";
import { createRecords } from "./records.ts";
import { layOutHome, readHomeSources, removeHomePaths } from "./spawn/home.ts";
import { createStore, resolveStateRoot } from "./state.ts";
import { createRootCheck } from "./state-root.ts";
import { createTmux, deriveSocket } from "./tmux.ts";
import { NO_TRACE } from "./trace.ts";
import { traceRecords, traceStore, traceWatch } from "./trace-ports.ts";
import { watchDir } from "./watch.ts";
import { createRuns } from "./workflow/store.ts";

/** Every tmux call is bounded; a healthy one answers in milliseconds. UMBEL_TMUX_TIMEOUT overrides. */
const DEFAULT_TMUX_TIMEOUT_MS = 10_000;

export const systemClock: Clock = {
  now: () => Date.now(),
  // Clamped: a delay past 2^31-1 ms fires after 1 ms (a deadline-long sleep would spin). A clamped
  // sleep ends early after ~24.8 days, and every caller loops on its own deadline.
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) return resolve();
      const timer = setTimeout(done, clampTimerMs(ms));
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
function selfArgv(): readonly string[] {
  if (import.meta.dir.startsWith("/$bunfs")) return [process.execPath];
  return [process.execPath, join(import.meta.dir, "..", "main.ts")];
}

/** The real ports, built once by main.ts (and by tests that drive real tmux). */
export function createDeps(
  env: Readonly<Record<string, string | undefined>>,
  options: { cwd?: string; signal?: AbortSignal; trace?: TracePort } = {},
): Deps {
  const trace = options.trace ?? NO_TRACE;
  const root = resolveStateRoot(env);
  const uid = typeof process.getuid === "function" ? process.getuid() : null;
  // Checked lazily, once, by the first state access of any face (nothing else pays for it).
  const ready = createRootCheck(root, uid);
  const store = traced(createStore(root, ready), traceStore);
  return {
    store,
    tmux: createTmux({
      socket: deriveSocket(root, env.UMBEL_TMUX_SOCKET),
      // Sessions are marked with their state root: a root sharing the socket never touches another's.
      root,
      hostEnv: env,
      timeoutMs: parseDuration(env.UMBEL_TMUX_TIMEOUT ?? "") ?? DEFAULT_TMUX_TIMEOUT_MS,
      trace,
    }),
    files: fileSystem,
    watch: traced({ dir: watchDir }, traceWatch),
    records: traced(createRecords(), traceRecords),
    home: { read: readHomeSources, layOut: layOutHome, remove: removeHomePaths },
    runs: createRuns(root, ready),
    guards: createGuardStore(store),
    checks: { run: runCheck, end: endCheck },
    system: {
      which: (bin, where) => Bun.which(bin, where),
      uuid: () => crypto.randomUUID(),
      installAssets,
      processStart,
      startDetached,
      runOnTerminal,
      // A compiled umbel runs its script from Bun's embedded filesystem; anything else is not a binary.
      selfCommand: () => (Bun.main.startsWith("/$bunfs/") ? [process.execPath] : null),
      selfArgv,
    },
    host: createHost(env),
    git: createGit(env),
    ssh: createSsh(env),
    clock: systemClock,
    trace,
    env,
    cwd: options.cwd ?? process.cwd(),
    uid: uid ?? 1000,
    pid: process.pid,
    signal: options.signal,
  };

  /** A port with the trace's eyes on it, or the port itself when tracing is off (no cost). */
  function traced<P>(port: P, wrap: (port: P, trace: TracePort) => P): P {
    return trace.on ? wrap(port, trace) : port;
  }
}
