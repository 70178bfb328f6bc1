import type { Clock } from "../../src/core/ports.ts";

/**
 * A virtual clock for operation unit tests: `sleep` jumps time forward at once (never a real wait),
 * firing the world's scheduled changes on the way, so a 30-minute timeout runs in microseconds.
 */
export type FakeClock = Clock & {
  /** Runs `change` when virtual time reaches `at` (ms). */
  at(at: number, change: () => void): void;
  /** Advances to `until` (or the first scheduled change, when `wake`), firing what is due. */
  advance(ms: number, wake?: boolean): Promise<void>;
  /** Virtual time spent in sleeps so far. */
  readonly slept: number;
};

export function createFakeClock(start = 0): FakeClock {
  let now = start;
  let slept = 0;
  const pending: { at: number; change: () => void }[] = [];
  const fire = () => {
    pending.sort((a, b) => a.at - b.at);
    while (pending[0] && pending[0].at <= now) pending.shift()?.change();
  };
  const advance = async (ms: number, wake = false) => {
    const until = now + Math.max(0, ms);
    const next = pending.reduce((min, p) => Math.min(min, p.at), Number.POSITIVE_INFINITY);
    const to = wake && next > now ? Math.min(until, next) : until;
    slept += to - now;
    now = to;
    fire();
    // Let other promises (a racing tmux call) settle as they would during a real sleep.
    await Promise.resolve();
  };
  return {
    now: () => now,
    sleep: async (ms, signal) => {
      if (signal?.aborted) return;
      await advance(ms);
    },
    at(at, change) {
      pending.push({ at, change });
      fire();
    },
    advance,
    get slept() {
      return slept;
    },
  };
}
