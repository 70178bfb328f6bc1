import { shellQuote } from "../../core/common/shell.ts";
import { DeliveryError, WorkerBusyError, WorkerDeadError } from "../../core/errors.ts";
import { DRAIN_HOOK_COMMAND } from "../../core/fleet/drain.ts";
import { compileNotify } from "../../core/fleet/notify.ts";
import {
  nextQueued,
  pendingCount,
  renderQueue,
  type SendOutput,
  type SentFromQueue,
  settle,
  withEntry,
} from "../../core/fleet/queue.ts";
import type { GuardedSendInput } from "../../core/guard/fields.ts";
import type { Deps } from "../../core/ports.ts";
import type { TurnState } from "../../core/wait/turn.ts";
import { openGuard } from "../guard/open.ts";
import { deliver, holdComposer, planTurn, prepareTurn, sendPrompt } from "../worker/send.ts";
import { lastTurn, viewWorker, type WorkerView } from "../worker/view.ts";
import { checkLiveness, isTurnOnByHooks, loadWorker, type Worker } from "../worker/worker.ts";
import { QUEUE_FILE, readQueue } from "./queue-file.ts";

/**
 * `send --queue` and the drain (core/fleet/queue.ts says why there is no daemon). Every change to the queue
 * is made under the worker's send lock, the one a send holds while it owns the composer.
 */

/** `send`: queued prompts go first (one is sent if the worker is idle; then this send finds it busy). */
export async function sendOrQueue(deps: Deps, input: GuardedSendInput): Promise<SendOutput> {
  if (input.queue) return queuePrompt(deps, input);
  const worker = await loadWorker(deps, input.name);
  const sent = await drainQueue(deps, worker);
  if (sent)
    throw new WorkerBusyError(
      `worker ${input.name} is busy with its queued prompt ${sent.id} (sent now, baseline ${sent.baseline}); send --queue queues yours`,
      { name: input.name, sent },
    );
  return sendPrompt(deps, input, worker);
}

/**
 * Sent at once to an idle worker with nothing queued; else appended to its queue. Its guardrails are
 * checked now (a usage error queues nothing) and recorded with its turn when it is sent.
 */
async function queuePrompt(deps: Deps, input: GuardedSendInput): Promise<SendOutput> {
  const started = deps.clock.now();
  const worker = await loadWorker(deps, input.name);
  const { name } = worker.meta;
  const { text, plan } = await planTurn(deps, worker, input);
  const live = await checkLiveness(deps, worker);
  if (!live.alive)
    throw new WorkerDeadError(`worker ${name} is not running (${live.why})`, { name, exit: live.exit });
  const lock = await holdComposer(deps, name);
  try {
    let queue = await readQueue(deps, name);
    // The last 8 hex digits of a fresh uuid (random in a v4 uuid, and what differs in a test's).
    const id = `q-${deps.system.uuid().slice(-8)}`;
    const queuedAt = new Date(deps.clock.now()).toISOString();
    const ahead = pendingCount(queue);
    if (ahead === 0 && !(await isTurnOn(deps, await viewWorker(deps, worker)))) {
      try {
        const sent = await deliver(deps, worker, text, started, prepareTurn(deps, worker, plan));
        queue = withEntry(queue, { id, state: "sent", queuedAt, baseline: sent.baseline, prompt: "" });
        await deps.store.writeWorkerFile(name, QUEUE_FILE, renderQueue(queue));
        return { ...sent, queued: { id, position: 0, state: "sent" } };
      } catch (error) {
        if (!(error instanceof WorkerBusyError)) throw error;
      }
    }
    queue = withEntry(queue, {
      id,
      state: "queued",
      queuedAt,
      prompt: text,
      ...(plan ? { guard: plan } : {}),
    });
    await deps.store.writeWorkerFile(name, QUEUE_FILE, renderQueue(queue));
    await armHookDrain(deps, worker);
    return {
      name,
      baseline: null,
      promptId: null,
      enters: 0,
      elapsedMs: deps.clock.now() - started,
      queued: { id, position: ahead, state: "queued" },
    };
  } finally {
    await lock.release();
  }
}

/** The worker's end-of-turn hook (`umbel __drain NAME`): its next queued prompt, sent if it is idle. */
export async function drainOnTurnEnd(deps: Deps, name: string): Promise<SentFromQueue | null> {
  return drainQueue(deps, await loadWorker(deps, name));
}

/**
 * Sends the next queued prompt when the worker is idle and no one else holds its composer: its id and
 * baseline, else null. A prompt the worker did not take is marked failed (never sent twice). While
 * the last turn's guardrails are being enforced the worker is not done with it (between attempts it
 * sits idle, waiting for its feedback): the queue waits for the guard's outcome.
 */
export async function drainQueue(deps: Deps, worker: Worker): Promise<SentFromQueue | null> {
  const { name } = worker.meta;
  if ((await deps.store.readWorkerFile(name, QUEUE_FILE)) === null || worker.meta.state !== "ready")
    return null;
  const view = await viewWorker(deps, worker);
  if ((await openGuard(deps, view)) !== null) return null;
  if (await isTurnOn(deps, view)) return null;
  const lock = await deps.store.lock(name, "send");
  if (!lock) return null;
  try {
    let queue = await readQueue(deps, name);
    const next = nextQueued(queue);
    if (!next) return null;
    try {
      const prepare = prepareTurn(deps, worker, next.guard ?? null);
      const sent = await deliver(deps, worker, next.prompt, deps.clock.now(), prepare);
      queue = settle(queue, next.id, { state: "sent", baseline: sent.baseline, prompt: "" });
      await deps.store.writeWorkerFile(name, QUEUE_FILE, renderQueue(queue));
      return { id: next.id, baseline: sent.baseline };
    } catch (error) {
      if (error instanceof WorkerBusyError) return null;
      if (!(error instanceof DeliveryError)) throw error;
      queue = settle(queue, next.id, { state: "failed", error: error.message });
      await deps.store.writeWorkerFile(name, QUEUE_FILE, renderQueue(queue));
      return null;
    }
  } finally {
    await lock.release();
  }
}

/**
 * `--on-limit continue`: a turn a usage limit stopped is not over, it goes on after the reset (claude
 * by itself, codex and gemini with the waiting umbel's continuation prompt; `failover`: on another
 * account); a queued prompt sent now would take its place. The queue waits for the continued turn's end.
 */
function isWaitingOutLimit(view: WorkerView, turn: TurnState): boolean {
  const on = view.meta.onLimit;
  if ((on !== "continue" && on !== "failover") || !view.provider.limits) return false;
  return turn.status === "failure" && turn.limit !== undefined;
}

/**
 * The hooks say the last turn is on, whatever the screen shows (operations/worker/worker.ts isTurnOnByHooks):
 * a TUI lagging its hooks shows the idle composer at a turn's start, and a prompt sent then lands in
 * the busy worker.
 */
async function isBusyByHooks(deps: Deps, view: WorkerView, turn: TurnState): Promise<boolean> {
  if (view.lastSubmit === null) return false;
  return isTurnOnByHooks(deps, view, view.events, view.lastSubmit, turn);
}

/** The last turn is not over: waiting out a usage limit, or on by its hooks. */
async function isTurnOn(deps: Deps, view: WorkerView): Promise<boolean> {
  const turn = await lastTurn(deps, view);
  if (turn === null) return false;
  return isWaitingOutLimit(view, turn) || (await isBusyByHooks(deps, view, turn));
}

/**
 * The worker's own end-of-turn hook drains too (hooks/hook.sh): at the events that end a turn
 * (drain.tsv, the provider's stop and provider-error rules) it runs drain.cmd, this very umbel's
 * hidden `__drain NAME`, in the background. Only a compiled umbel can be run again that way.
 */
async function armHookDrain(deps: Deps, worker: Worker): Promise<void> {
  const self = deps.system.selfCommand();
  const rules = (worker.provider.notifyRules ?? []).filter((r) => r.reason !== "input");
  if (self === null || rules.length === 0) return;
  // The socket's folder too: the hook runs in the CLI's env, which has no TMUX_TMPDIR (empty: tmux's default).
  const socket = `UMBEL_TMUX_SOCKET=${shellQuote(deps.tmux.socket)} TMUX_TMPDIR=${shellQuote(deps.env.TMUX_TMPDIR ?? "")}`;
  const env = `UMBEL_HOME=${shellQuote(deps.store.root)} ${socket}`;
  const command = [...self, DRAIN_HOOK_COMMAND, worker.meta.name].map(shellQuote).join(" ");
  await deps.store.writeWorkerFile(worker.meta.name, "drain.cmd", `${env} ${command}`);
  await deps.store.writeWorkerFile(worker.meta.name, "drain.tsv", compileNotify(rules));
}
