import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { systemClock } from "../../src/adapters/deps.ts";
import { runProcess } from "../../src/adapters/process.ts";
import { createWakeup } from "../../src/adapters/watch.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * A delay past 2^31-1 ms overflows Bun's timers: it is "set to 1" (with a TimeoutOverflowWarning on
 * stderr), so a sleep ends at once, a wait spins twice a second, and a process bound kills its child
 * at once. Durations are capped at 7 days where they are parsed; the timers clamp all the same.
 */
const HUGE = 2 ** 40;

/** Resolves to "pending" when `promise` has not settled within `ms`. */
async function settledWithin(promise: Promise<unknown>, ms: number): Promise<"settled" | "pending"> {
  const timer = new Promise<"pending">((resolve) => setTimeout(() => resolve("pending"), ms));
  return Promise.race([promise.then(() => "settled" as const), timer]);
}

describe("timers never take an overflowing delay", () => {
  test.each([HUGE, Number.POSITIVE_INFINITY])("the clock's sleep(%p) sleeps until aborted", async (ms) => {
    const stop = new AbortController();
    const slept = systemClock.sleep(ms, stop.signal);
    expect(await settledWithin(slept, 100)).toBe("pending");
    stop.abort();
    expect(await settledWithin(slept, 1000)).toBe("settled");
  });

  test("a wake-up's next(huge) waits for the notify", async () => {
    const wakeup = createWakeup();
    const next = wakeup.next(HUGE);
    expect(await settledWithin(next, 100)).toBe("pending");
    wakeup.notify();
    expect(await settledWithin(next, 1000)).toBe("settled");
  });

  test("a process bound of huge ms lets the child finish", async () => {
    const r = await runProcess(["sh", "-c", "sleep 0.2; echo done"], {
      env: { PATH: "/usr/bin:/bin" },
      timeoutMs: HUGE,
    });
    expect(r).toMatchObject({ stdout: "done\n", exitCode: 0, timedOut: false });
  });
});
