import { type FSWatcher, watch } from "node:fs";

export type Waker = {
  /** Resolves at the next change in the directory, after `maxMs`, or on abort: whichever is first. */
  next(maxMs: number, signal?: AbortSignal): Promise<void>;
  close(): void;
};

/**
 * fs.watch is the event bus: hooks and the wrapper write files into events/, and a waiter wakes on
 * each write. The caller's `maxMs` is the slow safety-net poll (fs events can be coalesced or lost
 * on some filesystems), never the hot path.
 */
export function watchDir(dir: string): Waker {
  let pending = false;
  let wake: (() => void) | null = null;
  let watcher: FSWatcher | null = null;
  try {
    watcher = watch(dir, () => {
      pending = true;
      wake?.();
    });
    watcher.on("error", () => {
      watcher?.close();
      watcher = null;
    });
  } catch {
    watcher = null; // the directory vanished (purged): polling still answers
  }
  return {
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
        const timer = setTimeout(done, maxMs);
        signal?.addEventListener("abort", done, { once: true });
        wake = done;
      });
    },
    close() {
      watcher?.close();
      wake?.();
    },
  };
}
