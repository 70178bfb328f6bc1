import { withArticle } from "../../core/common/suggest.ts";
import { AbortedError, DeliveryError, WorkerBusyError, WorkerDeadError } from "../../core/errors.ts";
import type { GuardedSendInput } from "../../core/guard/fields.ts";
import { withSchemaNote } from "../../core/guard/prompt.ts";
import type { Deps, Lock, Waker } from "../../core/ports.ts";
import type { Delivery } from "../../core/providers/types.ts";
import { parseEvents } from "../../core/worker/events.ts";
import type { SendResult } from "../../core/worker/outputs.ts";
import { screenTail } from "../../core/worker/screen.ts";
import { refuseOpenGuard } from "../guard/open.ts";
import { type GuardPlan, newGuardRecord, planGuard, recordTurnSchema } from "../guard/plan.ts";
import { closeLimitBox } from "../limits/limit-box.ts";
import { lastTurn, viewWorker } from "./view.ts";
import { checkLiveness, loadWorker, type Worker } from "./worker.ts";

/**
 * claude's and codex's: Enter follows the bracketed paste after 10 ms. Measured on claude 2.1.332
 * (bench/measure/enter-delay.ts, first-enter.ts): 0 ms took 160 of 160 Enters, pastes of 20 to
 * 40,000 characters, with two CPU burners on 2 cores, and every first prompt straight after spawn;
 * codex 0.171.0 took every first Enter after a paste at 0 ms too (shared notes). It was 120 ms.
 * UserPromptSubmit arrives 30-70 ms after Enter (up to ~450 ms right after boot), so Enter is
 * re-pressed only if nothing came in 1 s.
 */
const DELIVERY: Delivery = { enterDelayMs: 10, confirmWindowMs: 1000, maxEnters: 4 };
/** How long a prompt the TUI visibly took (busy) may wait for its submit hook. */
const LATE_SUBMIT_MS = 10_000;

/**
 * Called once the baseline is known, before anything is typed: records what goes with the turn (its
 * guardrails, the schema the StructuredOutput tool checks); the result undoes it if delivery fails.
 */
export type PrepareTurn = (baseline: number) => Promise<() => Promise<void>>;

/**
 * Pastes the prompt (bracketed), presses Enter, and proves the prompt was taken by the provider's
 * submit hook, re-pressing Enter while the screen still shows the prompt unsent. Fails (the worker
 * is left alive) when it cannot prove delivery. Guardrails (--json-schema, --accept) are checked
 * first and recorded with the turn, so whichever process waits for it enforces them.
 */
export async function sendPrompt(
  deps: Deps,
  input: GuardedSendInput,
  /** The worker as the caller loaded it for this verb (read once), else loaded here. */
  loaded?: Worker,
  /** knownAlive: the caller's own liveness look found it alive just now (a -p's claim of a spare). */
  options: { knownAlive?: boolean } = {},
): Promise<SendResult> {
  const worker = loaded ?? (await loadWorker(deps, input.name));
  const { text, plan } = await planTurn(deps, worker, input);
  return deliverTurn(deps, worker, text, prepareTurn(deps, worker, plan), "caller", options);
}

/** The text to type (a schema's note appended) and the turn's guardrails, checked before any I/O. */
export async function planTurn(
  deps: Deps,
  worker: Worker,
  input: GuardedSendInput,
): Promise<{ text: string; plan: GuardPlan | null }> {
  const { name: _name, prompt, queue: _queue, ...guardInput } = input;
  const plan = await planGuard(deps, worker, guardInput);
  return { text: plan?.jsonSchema ? withSchemaNote(prompt, plan.jsonSchema) : prompt, plan };
}

/** Records what goes with a turn at its baseline: the schema the tool checks, and its guardrails. */
export function prepareTurn(deps: Deps, worker: Worker, plan: GuardPlan | null): PrepareTurn {
  return async (baseline) => {
    const schema = plan?.jsonSchema ?? null;
    const undoSchema = await recordTurnSchema(deps, worker, baseline, schema);
    if (!plan) return undoSchema;
    await deps.guards.write(worker.meta.name, newGuardRecord(plan, baseline, deps.clock.now()));
    return async () => {
      await deps.guards.remove(worker.meta.name, baseline);
      await undoSchema();
    };
  };
}

/**
 * Who types: a caller (send, the queue, -p's first prompt) starts a turn of its own, so it finds a
 * worker whose guarded turn is open busy; the turn's own loop (a guard's feedback, a usage limit's
 * continuation) goes on with that turn.
 */
export type Sender = "caller" | "turn-loop";

/** A turn of text to a loaded worker: liveness, the composer lock, delivery and its proof. */
export async function deliverTurn(
  deps: Deps,
  worker: Worker,
  text: string,
  prepare?: PrepareTurn,
  sender: Sender = "caller",
  /** knownAlive: no look of its own (the caller's found the worker alive a moment ago). */
  options: { knownAlive?: boolean } = {},
): Promise<SendResult> {
  const started = deps.clock.now();
  const { name } = worker.meta;
  if (options.knownAlive !== true) {
    const live = await checkLiveness(deps, worker);
    if (!live.alive)
      throw new WorkerDeadError(`worker ${name} is not running (${live.why})`, { name, exit: live.exit });
  }
  // One send owns the composer from paste to proof: two at once merged or lost a prompt (10 of 10).
  const lock = await holdComposer(deps, name);
  try {
    return await deliver(deps, worker, text, started, prepare, sender);
  } finally {
    await lock.release();
  }
}

/** A send that finds the composer held waits for it (then sees the worker busy) within this. */
const COMPOSER_WAIT_MS = 20_000;
const COMPOSER_POLL_MS = 50;

export async function holdComposer(deps: Deps, name: string): Promise<Lock> {
  const until = deps.clock.now() + COMPOSER_WAIT_MS;
  for (;;) {
    const lock = await deps.store.lock(name, "send");
    if (lock) return lock;
    stopIfAborted(deps, name, false);
    if (deps.clock.now() >= until)
      throw new WorkerBusyError(`another send to worker ${name} is still delivering its prompt`, { name });
    await deps.clock.sleep(COMPOSER_POLL_MS, deps.signal);
  }
}

/**
 * Delivers to an idle worker (the caller holds the composer); WorkerBusyError, typing nothing, if it
 * is not, or if a caller finds its guarded turn open (checked under the composer lock, which the
 * guard loop's feedback takes too). `prepare` runs once the baseline is known, before anything is typed.
 */
export async function deliver(
  deps: Deps,
  worker: Worker,
  prompt: string,
  started: number,
  prepare: PrepareTurn | undefined,
  sender: Sender = "caller",
): Promise<SendResult> {
  const { name } = worker.meta;
  const settled = await settledScreen(deps, worker);
  // The one look at the worker before typing, under the composer lock: its open guard, the limit
  // box, whether a turn is on, and the baseline the prompt gets all come from this read.
  const view = await viewWorker(deps, worker);
  if (sender === "caller") await refuseOpenGuard(deps, view);
  const screen = await closeLimitBox(deps, view, settled);
  const state = worker.provider.classifyScreen(screen);
  if (state.kind === "ready" && worker.provider.screenShowsStreaming === false) {
    // codex streams its answer with no busy marker: the hooks say whether a turn is still on (a
    // prompt sent now would steer that turn, not start one).
    if ((await lastTurn(deps, view))?.status === "running") {
      throw new WorkerBusyError(`worker ${name} is busy with a turn; wait for it before sending`, {
        name,
        screen: screenTail(screen),
      });
    }
  }
  if (state.kind !== "ready") {
    const what =
      state.kind === "busy"
        ? "is busy with a turn"
        : `shows ${withArticle(state.kind === "dialog" ? `${state.dialog} dialog` : `${state.kind} screen`)}`;
    throw new WorkerBusyError(`worker ${name} ${what}; wait for it before sending`, {
      name,
      screen: screenTail(screen),
    });
  }
  const baseline = view.eventCount;
  const undo = (await prepare?.(baseline)) ?? (async () => {});
  try {
    return await paste(deps, worker, prompt, screen, baseline, started);
  } catch (error) {
    await undo().catch(() => undefined);
    throw error;
  }
}

async function paste(
  deps: Deps,
  worker: Worker,
  prompt: string,
  screen: string,
  baseline: number,
  started: number,
): Promise<SendResult> {
  const { name } = worker.meta;
  stopIfAborted(deps, name, false);
  const text = worker.provider.preparePrompt(prompt);
  const delivery = worker.provider.delivery ?? DELIVERY;
  // C-u clears what an interrupt may have put back into the box (harmless on an empty box); codex's
  // C-u stops at the line start, so the provider names its own keys.
  // They go with the paste, in one tmux call.
  const clear = worker.provider.clearInputKeys?.(screen) ?? ["C-u", "C-u", "C-u"];
  await deps.tmux.paste(name, text, `umbel-send-${deps.system.uuid().slice(0, 8)}`, clear);
  deps.trace.mark(`send ${name}: pasted ${text.length} chars; Enter in ${delivery.enterDelayMs} ms`);
  await deps.clock.sleep(delivery.enterDelayMs, deps.signal);
  stopIfAborted(deps, name, true);
  const waker = deps.watch.dir(deps.store.paths(name).events);
  try {
    for (let enters = 1; enters <= delivery.maxEnters; enters++) {
      await deps.tmux.sendKeys(name, ["Enter"]);
      const promptId = await awaitSubmit(deps, worker, baseline, waker, delivery.confirmWindowMs);
      if (promptId !== undefined) {
        deps.trace.mark(`send ${name}: accepted after ${enters} Enter`);
        return { name, baseline, promptId, enters, elapsedMs: deps.clock.now() - started };
      }
      stopIfAborted(deps, name, true);
      const now = worker.provider.classifyScreen((await deps.tmux.capture(name)) ?? "");
      if (now.kind === "busy") {
        // The TUI took the prompt and is working on it; on a loaded machine its submit hook (a
        // shell start) can take longer than the window (seen with 12 CLIs starting at once).
        const late = await awaitSubmit(deps, worker, baseline, waker, LATE_SUBMIT_MS);
        if (late !== undefined)
          return { name, baseline, promptId: late, enters, elapsedMs: deps.clock.now() - started };
        stopIfAborted(deps, name, true);
        break;
      }
      // Only press Enter again on the composer: on a permission prompt it would answer "Yes".
      if (now.kind !== "ready") break;
    }
  } finally {
    waker.close();
  }
  const after = await deps.tmux.capture(name).catch(() => null);
  throw new DeliveryError(`worker ${name} did not take the prompt (no ${worker.provider.submitEvent} hook)`, {
    name,
    baseline,
    screen: screenTail(after),
  });
}

/**
 * Ctrl-C (SIGTERM, SIGHUP, an MCP cancel) while a prompt is delivered is the caller's abort (130),
 * never a failed delivery; `typed`: the prompt may already be in the box, or taken.
 */
function stopIfAborted(deps: Deps, name: string, typed: boolean): void {
  if (!deps.signal?.aborted) return;
  const what = typed ? " (it may have been taken: see its status)" : "; nothing was typed";
  throw new AbortedError(`interrupted while delivering the prompt to worker ${name}${what}`, { name, typed });
}

/** The submit event's prompt id (null when the provider gives none), or undefined on no event. */
async function awaitSubmit(
  deps: Deps,
  worker: Worker,
  baseline: number,
  waker: Waker,
  windowMs: number,
): Promise<string | null | undefined> {
  const until = deps.clock.now() + windowMs;
  for (;;) {
    const events = parseEvents(worker.provider, await deps.store.readHooksLog(worker.meta.name), baseline);
    for (const event of events) {
      const signal = worker.provider.interpretEvent(event);
      if (signal.kind === "submitted" && signal.human) return signal.promptId;
    }
    const left = until - deps.clock.now();
    if (left <= 0 || deps.signal?.aborted) return undefined;
    await waker.next(Math.min(left, 250), deps.signal);
  }
}

/**
 * claude draws its idle screen only after its Stop hooks have run (tens of ms after Stop fires);
 * gemini, on 2 loaded cores, took seconds to draw a readable frame after spawn; opencode's pane lags
 * its plugin's idle (30-115 ms at load 17, 1.18.33) and more as the load grows. Only a turn the events
 * say has ended is waited for (a busy one is refused at once), so the bound costs nothing otherwise.
 */
const SETTLE_MS = 10_000;

/**
 * The screen, given a moment to catch up when the events say the last turn has ended but the TUI
 * still shows it busy: a caller going straight from `wait` (stop) to `send` lands in that gap.
 */
async function settledScreen(deps: Deps, worker: Worker): Promise<string> {
  const { name } = worker.meta;
  let screen = (await deps.tmux.capture(name)) ?? "";
  const first = worker.provider.classifyScreen(screen).kind;
  if (first !== "busy" && first !== "unknown") return screen;
  if (first === "busy") {
    const turn = (await lastTurn(deps, await viewWorker(deps, worker)))?.status;
    if (turn !== "stop" && turn !== "failure") return screen;
  }
  // A screen mid-redraw reads "unknown" (gemini under load redraws its whole frame for a moment),
  // and a pane still drawing an ended turn busy can pass through such a frame before its composer
  // (gemini on a loaded CI): both are waited out, together, for SETTLE_MS at most.
  const until = deps.clock.now() + SETTLE_MS;
  while (deps.clock.now() < until && !deps.signal?.aborted) {
    await deps.clock.sleep(50, deps.signal);
    screen = (await deps.tmux.capture(name)) ?? "";
    const kind = worker.provider.classifyScreen(screen).kind;
    if (kind !== "unknown" && kind !== "busy") break;
  }
  return screen;
}
