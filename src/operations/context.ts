import { createStore, resolveStateRoot, type Store } from "../adapters/state.ts";
import { createTmux, deriveSocket, type Tmux } from "../adapters/tmux.ts";
import { parseDuration } from "../core/duration.ts";
import { AbortedError } from "../core/errors.ts";

/** Every tmux call is bounded; a healthy one answers in milliseconds. UMBEL_TMUX_TIMEOUT overrides. */
const DEFAULT_TMUX_TIMEOUT_MS = 10_000;

type Clock = {
  now(): number;
  /** Resolves after ms, or early (without throwing) when the signal aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
};

/** Everything an operation touches, passed in so tests can swap any piece. */
export type Deps = {
  readonly store: Store;
  readonly tmux: Tmux;
  readonly clock: Clock;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly cwd: string;
  readonly uid: number;
  readonly signal?: AbortSignal | undefined;
};

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

export function createDeps(
  env: Readonly<Record<string, string | undefined>>,
  options: { cwd?: string; signal?: AbortSignal } = {},
): Deps {
  const root = resolveStateRoot(env);
  return {
    store: createStore(root),
    tmux: createTmux({
      socket: deriveSocket(root, env.UMBEL_TMUX_SOCKET),
      hostEnv: env,
      timeoutMs: parseDuration(env.UMBEL_TMUX_TIMEOUT ?? "") ?? DEFAULT_TMUX_TIMEOUT_MS,
    }),
    clock: systemClock,
    env,
    cwd: options.cwd ?? process.cwd(),
    uid: typeof process.getuid === "function" ? process.getuid() : 1000,
    signal: options.signal,
  };
}

export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new AbortedError(`${what} was interrupted`);
}
