import { type FSWatcher, watch } from "node:fs";
import { clampTimerMs } from "../core/common/duration.ts";
import type { Waker } from "../core/ports.ts";

/** A one-slot wake-up: `notify` wakes the pending `next`, or the next one to come (never lost). */
export type Wakeup = {
  notify(): void;
  next(maxMs: number, signal?: AbortSignal): Promise<void>;
  /** Releases a pending `next` (on close). */
  release(): void;
};

export function createWakeup(): Wakeup {
  let pending = false;
  let wake: (() => void) | null = null;
  return {
    notify() {
      pending = true;
      wake?.();
    },
    next(maxMs, signal) {
      if (pending || signal?.aborted) {
        pending = false;
        return Promise.resolve();
      }
      return new Promise((resolve) => {
        const done = () => {
          clearTimeout(timer);
          signal?.removeEventListener("abort", done);
          wake = null;
          pending = false;
          resolve();
        };
        const timer = setTimeout(done, clampTimerMs(maxMs)); // past 2^31-1 ms it would fire at once
        signal?.addEventListener("abort", done, { once: true });
        wake = done;
      });
    },
    release() {
      wake?.();
    },
  };
}

/**
 * fs.watch is the event bus: hooks and the wrapper write files into events/, and a waiter wakes on
 * each write. The caller's `maxMs` is the slow safety-net poll (fs events can be coalesced or lost
 * on some filesystems), never the hot path.
 */
export function watchDir(dir: string): Waker {
  const wakeup = createWakeup();
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(dir, wakeup.notify);
    watcher.on("error", () => {
      watcher?.close();
      watcher = null;
    });
  } catch {
    watcher = null; // the directory vanished (purged): polling still answers
  }
  return {
    next: wakeup.next,
    close() {
      watcher?.close();
      wakeup.release();
    },
  };
}
