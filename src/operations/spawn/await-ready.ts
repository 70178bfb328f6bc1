import { drive } from "../../core/common/drive.ts";
import { SpawnFailedError, UmbelError } from "../../core/errors.ts";
import type { Deps, Waker } from "../../core/ports.ts";
import type { Provider } from "../../core/providers/types.ts";
import {
  type ReadyCommand,
  type ReadyConfig,
  type ReadyObservation,
  startReady,
  stepReady,
} from "../../core/spawn/ready.ts";
import type { DialogAnswer } from "../../core/worker/outputs.ts";
import { DEAD_SCROLLBACK } from "../worker/worker.ts";

/**
 * Drives the readiness machine (core/spawn/ready.ts): polls the screen (tmux has no change notification)
 * and wakes early on hook events. Ready means the provider's idle screen AND its SessionStart hook: a
 * TUI whose hooks do not fire cannot prove delivery, so that is a failure, not a ready worker.
 */
export async function waitReady(
  deps: Deps,
  provider: Provider,
  name: string,
  options: Pick<ReadyConfig, "untrusted" | "signInAdvice" | "cwd" | "sessionTrust" | "logFrom"> & {
    timeoutMs: number;
  },
): Promise<DialogAnswer[]> {
  const { timeoutMs, ...rest } = options;
  const deadline = deps.clock.now() + timeoutMs;
  const waker = deps.watch.dir(deps.store.paths(name).events);
  const looked: Looked = { screen: undefined };
  try {
    return await drive({
      state: startReady({ provider, name, deadline, timeoutMs, ...rest }),
      first: observe(deps, { kind: "tick" }),
      step: stepReady,
      isEnd: (command): command is Extract<ReadyCommand, { kind: "ready" | "fail" }> =>
        command.kind === "ready" || command.kind === "fail",
      end: (command) => {
        if (command.kind === "fail") throw command.error;
        return [...command.dialogs];
      },
      perform: (command) => performReady(deps, name, waker, command, looked),
    });
  } catch (error) {
    if (error instanceof UmbelError) throw error;
    throw new SpawnFailedError(`spawn failed: ${(error as Error).message}`, { name }, { cause: error });
  } finally {
    waker.close();
  }
}

type ReadySeen = ReadyObservation extends infer O
  ? O extends ReadyObservation
    ? Omit<O, "now" | "aborted">
    : never
  : never;

function observe(deps: Deps, seen: ReadySeen): ReadyObservation {
  return { ...seen, now: deps.clock.now(), aborted: deps.signal?.aborted === true } as ReadyObservation;
}

/** The screen the last probe's tmux call brought along, for the capture right after it. */
type Looked = { screen: string | null | undefined };

async function performReady(
  deps: Deps,
  name: string,
  waker: Waker,
  command: Exclude<ReadyCommand, { kind: "ready" | "fail" }>,
  looked: Looked,
): Promise<ReadyObservation> {
  const brought = looked.screen;
  looked.screen = undefined;
  switch (command.kind) {
    case "read-exit":
      return observe(deps, { kind: "exit", exit: await deps.store.readExit(name) });
    case "read-log":
      return observe(deps, { kind: "log", log: await deps.store.readHooksLog(name) });
    case "probe": {
      // The pane and its screen in one tmux call: the capture that follows takes the screen.
      const look = deps.tmux.look(name);
      const seen = command.tolerant ? await look.catch(() => ({ pane: null, screen: null })) : await look;
      looked.screen = seen.screen;
      return observe(deps, { kind: "pane", pane: seen.pane });
    }
    case "capture": {
      if (!command.scrollback && brought !== undefined)
        return observe(deps, { kind: "screen", screen: brought });
      if (!command.scrollback)
        return observe(deps, { kind: "screen", screen: await deps.tmux.capture(name) });
      const screen = await deps.tmux.capture(name, { lines: DEAD_SCROLLBACK }).catch(() => null);
      return observe(deps, { kind: "screen", screen });
    }
    case "keys":
      await deps.tmux.sendKeys(name, command.keys);
      return observe(deps, { kind: "keys" });
    case "sleep":
      if (command.wake) await waker.next(command.ms, deps.signal);
      else await deps.clock.sleep(command.ms);
      return observe(deps, { kind: "tick" });
  }
}
