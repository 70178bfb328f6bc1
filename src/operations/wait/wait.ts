import { drive } from "../../core/common/drive.ts";
import { NoTurnError, TmuxError, TmuxTimeoutError } from "../../core/errors.ts";
import type { Deps, Waker } from "../../core/ports.ts";
import type { WaitInput } from "../../core/schemas.ts";
import { startWait, stepWait } from "../../core/wait/machine.ts";
import { OUTCOME_EXIT, type Outcome } from "../../core/wait/outcome.ts";
import type {
  PaneSeen,
  WaitBudget,
  WaitCommand,
  WaitObservation,
  WaitProgress,
} from "../../core/wait/types.ts";
import { failOverWorker } from "../accounts/failover.ts";
import { noteLimit } from "../accounts/record.ts";
import { readStatusLine } from "../limits/cost.ts";
import { bounded, LATE } from "../worker/bounded.ts";
import { deliverTurn } from "../worker/send.ts";
import { viewWorker, type WorkerView } from "../worker/view.ts";
import { lastScreen, loadWorker, type Worker } from "../worker/worker.ts";

export const DEFAULT_WAIT_TIMEOUT_MS = 30 * 60_000;

export type { WaitProgress };

/**
 * Blocks until the turn after the baseline ends and returns exactly one outcome. The rules live in
 * the pure state machine (`core/wait/`); this drives it: it performs each command (file reads, tmux
 * calls bounded by the machine's deadline, sleeps that a file event in events/ ends early) and feeds
 * back what it saw.
 */
export async function waitForTurn(
  deps: Deps,
  input: WaitInput,
  onProgress?: (progress: WaitProgress) => void,
  options: {
    /** A cost budget (`-p --max-budget-usd`), beside the input's token budget. */
    readonly cost?: Pick<WaitBudget, "maxCostUsd" | "costBaseUsd">;
    /** The worker as the verb read it (once), else read here. */
    readonly worker?: Worker;
  } = {},
): Promise<Outcome> {
  const startedAt = deps.clock.now();
  const worker = options.worker ?? (await loadWorker(deps, input.name));
  const { name } = worker.meta;
  const baseline = input.after ?? turnBaseline(await viewWorker(deps, worker));
  const stallMs = Number(deps.env.UMBEL_RETRY_STALL_MS);
  const state = startWait({
    provider: worker.provider,
    baseline,
    startedAt,
    deadline: startedAt + (input.timeout ?? DEFAULT_WAIT_TIMEOUT_MS),
    idleTimeoutMs: input.idleTimeout ?? null,
    stallMs: stallMs > 0 ? stallMs : undefined,
    killed: worker.meta.state === "killed",
    onLimit: worker.meta.onLimit,
    budget:
      input.maxTokens === undefined && options.cost === undefined
        ? undefined
        : { maxTokens: input.maxTokens, ...options.cost },
  });
  const waker = deps.watch.dir(deps.store.paths(name).events);
  // A failover relaunches the worker on another account: the worker as it is now.
  const looked: Looked = { screen: undefined, worker };
  try {
    const ended = await drive({
      state,
      first: observe(deps, { kind: "tick" }),
      step: stepWait,
      isEnd: (command): command is Extract<WaitCommand, { kind: "done" }> => command.kind === "done",
      // A continuation prompt (--on-limit continue) moves the baseline to the turn it started.
      end: (command, ended) => {
        deps.trace.mark(`wait ${name}: ${command.reason}`);
        return outcome(
          name,
          ended.config.baseline,
          startedAt,
          deps.clock.now(),
          command.reason,
          command.evidence,
        );
      },
      perform: (command) => {
        if (command.kind === "sleep" && command.progress) onProgress?.(command.progress);
        // A move takes a CLI start (seconds): say so before it.
        if (command.kind === "failover")
          onProgress?.({
            elapsedMs: deps.clock.now() - startedAt,
            turn: "failure",
            limited: command.limit,
            failingOver: true,
          });
        return perform(deps, waker, command, looked);
      },
    });
    // The one place a turn's limit is known: the account's record keeps it for placement.
    await noteLimit(deps, worker.meta, ended);
    return ended;
  } finally {
    waker.close();
  }
}

/** The turn to wait for when no `after` is given: the last prompt sent (none yet: NoTurnError, exit 5). */
export function turnBaseline(view: WorkerView): number {
  const { name } = view.meta;
  if (view.lastSubmit === null)
    throw new NoTurnError(`worker ${name} has not been sent a prompt yet: there is no turn to wait for`, {
      name,
    });
  return view.lastSubmit;
}

type Pending = Exclude<WaitCommand, { kind: "done" }>;
type Seen = WaitObservation extends infer O
  ? O extends WaitObservation
    ? Omit<O, "now" | "aborted">
    : never
  : never;

function observe(deps: Deps, seen: Seen): WaitObservation {
  return { ...seen, now: deps.clock.now(), aborted: deps.signal?.aborted === true } as WaitObservation;
}

/** The screen the last probe's tmux call brought along, for a capture in the same wake; the worker. */
type Looked = { screen: string | null | undefined; worker: Worker };

async function perform(deps: Deps, waker: Waker, command: Pending, looked: Looked): Promise<WaitObservation> {
  const { worker } = looked;
  const { name } = worker.meta;
  const brought = looked.screen;
  looked.screen = undefined;
  switch (command.kind) {
    case "read": {
      const log = await deps.store.readHooksLog(name);
      const exit = await deps.store.readExit(name);
      if (!command.statusLine) return observe(deps, { kind: "read", log, exit });
      const statusLine = await readStatusLine(deps, name);
      return observe(deps, { kind: "read", log, exit, statusLine });
    }
    case "send":
      try {
        // The same turn goes on: the turn schema (a guarded --structured turn's) stays as it is, and
        // so does its guard (this is its turn's own continuation, not a caller's prompt).
        const sent = await deliverTurn(deps, worker, command.prompt, undefined, "turn-loop");
        return observe(deps, { kind: "sent", baseline: sent.baseline, error: null });
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return observe(deps, { kind: "sent", baseline: null, error: message });
      }
    case "failover": {
      const { result, worker: now } = await failOverWorker(deps, worker, command);
      looked.worker = now;
      return observe(deps, { kind: "failed-over", result });
    }
    case "read-transcript": {
      const size = await deps.records.size(command.source);
      const fresh = command.wantText && size !== null && size !== command.knownSize;
      const text = fresh ? await deps.records.read(command.source) : null;
      return observe(deps, { kind: "transcript", size, text });
    }
    case "probe": {
      const seen = await probe(deps, name, command.bound);
      looked.screen = seen.screen;
      return observe(deps, { kind: "pane", pane: seen.pane });
    }
    case "capture": {
      // A probe just now brought the screen along (one tmux call, not two).
      if (!command.orRecorded && brought !== undefined)
        return observe(deps, { kind: "screen", screen: brought });
      const capture = command.orRecorded ? lastScreen(deps, name) : deps.tmux.capture(name);
      const screen = await bounded(
        deps.clock,
        command.bound,
        capture.catch(() => null),
      );
      return observe(deps, { kind: "screen", screen: screen === LATE ? null : screen });
    }
    case "keys":
      await bounded(
        deps.clock,
        command.bound,
        deps.tmux.sendKeys(name, command.keys).catch(() => false),
      );
      return observe(deps, { kind: "keys" });
    case "sleep":
      if (command.wake) await waker.next(command.ms, deps.signal);
      else await deps.clock.sleep(command.ms, deps.signal);
      return observe(deps, { kind: "tick" });
  }
}

/**
 * The pane and its screen, in one tmux call. A hung or failing tmux says nothing about the worker:
 * never read it as "dead" (and no screen comes with it).
 */
async function probe(
  deps: Deps,
  name: string,
  bound: number,
): Promise<{ pane: PaneSeen; screen: string | null | undefined }> {
  const look = await bounded(
    deps.clock,
    bound,
    deps.tmux.look(name).catch((error: unknown) => {
      if (error instanceof TmuxTimeoutError || error instanceof TmuxError) return "unknown" as const;
      throw error;
    }),
  );
  if (look === LATE || look === "unknown") return { pane: "unknown", screen: undefined };
  const pane = look.pane === null ? "gone" : look.pane.dead ? "dead" : "alive";
  return { pane, screen: look.screen };
}

function outcome(
  name: string,
  baseline: number,
  startedAt: number,
  now: number,
  reason: Outcome["reason"],
  evidence: Outcome["evidence"],
): Outcome {
  return { reason, exitCode: OUTCOME_EXIT[reason], name, baseline, elapsedMs: now - startedAt, evidence };
}
