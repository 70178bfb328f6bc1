import {
  DeliveryError,
  NoPromptError,
  PromptGoneError,
  UsageError,
  WorkerBusyError,
  WorkerDeadError,
} from "../../core/errors.ts";
import {
  type AnswerMeanings,
  DEFAULT_MEANINGS,
  inputIdOf,
  type PromptOption,
  planAnswer,
  readMenu,
  showsPrompt,
} from "../../core/fleet/answer.ts";
import type { AnswerInput, AnswerResult } from "../../core/fleet/answer-schema.ts";
import type { Deps, Lock } from "../../core/ports.ts";
import { screenTail } from "../../core/worker/screen.ts";
import { sendKeys } from "../worker/keys.ts";
import { lastTurn, viewWorker, type WorkerView } from "../worker/view.ts";
import { checkLiveness, loadWorker, type Worker } from "../worker/worker.ts";

/**
 * Answers the prompt the worker shows by meaning (allow, always, deny, an option): the provider's
 * menu says which keys. With `inputId` it answers only that very prompt: when the worker's pending
 * prompt has another id, another caller answered it already, or its screen no longer shows it,
 * nothing is pressed (PromptGoneError, exit 4).
 *
 * One answer per prompt: the whole look → check → press → "the prompt went away" runs under the
 * worker's answer lock, and the prompt's id is recorded (answered.json) before its key is pressed.
 * Without them, two callers on one id both read the prompt and both pressed (10 of 10 in issue 22):
 * the command ran while the deny caller was told it succeeded, and the losers' keys stayed typed in
 * the composer.
 */
export async function answerPrompt(deps: Deps, input: AnswerInput): Promise<AnswerResult> {
  const started = deps.clock.now();
  const worker = await loadWorker(deps, input.name);
  const { name } = worker.meta;
  const live = await checkLiveness(deps, worker);
  if (!live.alive)
    throw new WorkerDeadError(`worker ${name} is not running (${live.why})`, { name, exit: live.exit });
  const lock = await holdAnswer(deps, name);
  try {
    // Under the lock the events are looked at again: the prompt's id is the one pending now.
    return await answerHeld(deps, await viewWorker(deps, worker), input, started);
  } finally {
    await lock.release();
  }
}

/** The file that names the last prompt answered (its id, the choice, when): one answer per id. */
const ANSWERED = "answered.json";
type Answered = { readonly inputId: string; readonly choice: string; readonly at: string };

async function answerHeld(
  deps: Deps,
  worker: WorkerView,
  input: AnswerInput,
  started: number,
): Promise<AnswerResult> {
  const { name } = worker.meta;
  const { provider } = worker;
  const turn = await lastTurn(deps, worker);
  const pending = turn?.status === "input" ? { inputId: inputIdOf(turn), text: turn.text } : null;
  const screen = (await deps.tmux.capture(name)) ?? "";
  const shown = provider.classifyScreen(screen);
  const onScreen = shown.kind === "input" && (pending === null || showsPrompt(screen, pending.text));
  const answered = await readAnswered(deps, name);
  // The pending prompt was answered by an earlier caller whose key the screen has not shown yet.
  const taken = pending !== null && answered?.inputId === pending.inputId ? answered : null;
  if (input.inputId !== undefined) {
    const done = answered?.inputId === input.inputId ? answered : null;
    if (done || pending?.inputId !== input.inputId || !onScreen) {
      const now = pending && onScreen && !taken ? `; it now asks ${pending.inputId}: ${pending.text}` : "";
      const why = done ? ` (another caller answered it ${done.choice} at ${done.at})` : "";
      throw new PromptGoneError(
        `worker ${name} no longer shows prompt ${input.inputId}${why}${now}; nothing was pressed`,
        {
          name,
          inputId: input.inputId,
          current: pending && onScreen && !taken ? pending.inputId : null,
          answered: done,
          screen: screenTail(screen),
        },
      );
    }
  } else if (shown.kind !== "input" || taken) {
    const why = taken ? ` (prompt ${taken.inputId} was answered ${taken.choice} at ${taken.at})` : "";
    throw new NoPromptError(`worker ${name} shows no prompt to answer${why}; nothing was pressed`, {
      name,
      answered: taken,
      screen: screenTail(screen),
    });
  }
  const plan = planAnswer(await readOptions(deps, worker, screen), input.choice, meaningsOf(worker));
  if (!plan.ok) throw new UsageError(`worker ${name}: ${plan.reason}`, { name, choice: input.choice });
  const inputId = onScreen && pending ? pending.inputId : null;
  // Recorded before the key: a caller that dies after pressing still leaves the id answered.
  if (inputId !== null) await writeAnswered(deps, name, { inputId, choice: input.choice, at: isoNow(deps) });
  // sendKeys returns once the prompt has left the screen (or its bound passed), still under the lock.
  await sendKeys(deps, { name, keys: [...plan.keys] });
  const keys = [...plan.keys];
  if (plan.confirm !== undefined) keys.push(...(await answerConfirmation(deps, worker, plan.confirm, keys)));
  return {
    name,
    choice: input.choice,
    prompt: shown.kind === "input" ? shown.text : (pending?.text ?? ""),
    inputId,
    option: plan.option ? { number: plan.option.number, label: plan.option.label } : null,
    keys,
    elapsedMs: deps.clock.now() - started,
  };
}

/** How long the confirmation an option opens may take to show (opencode draws it within ~100 ms). */
const CONFIRM_MS = 3000;

/**
 * The confirmation an option opens (opencode's Allow always → `Confirm   Cancel`): once its menu
 * shows the choice, that choice's keys are pressed. A confirmation that does not show is a
 * DeliveryError naming what was pressed; nothing more is.
 */
async function answerConfirmation(
  deps: Deps,
  worker: Worker,
  choice: string,
  pressed: readonly string[],
): Promise<readonly string[]> {
  const { name } = worker.meta;
  const until = deps.clock.now() + CONFIRM_MS;
  for (;;) {
    const screen = (await deps.tmux.capture(name)) ?? "";
    const plan = planAnswer(await readOptions(deps, worker, screen), choice, meaningsOf(worker));
    if (plan.ok && plan.option !== null) {
      await sendKeys(deps, { name, keys: [...plan.keys] });
      return plan.keys;
    }
    if (deps.clock.now() >= until || deps.signal?.aborted)
      throw new DeliveryError(
        `worker ${name}: pressed ${pressed.join(" ")}, but the confirmation it opens (${choice}) did not show within ${CONFIRM_MS / 1000} s; nothing more was pressed (see umbel capture ${name})`,
        { name, keys: [...pressed], confirm: choice, screen: screenTail(screen) },
      );
    await deps.clock.sleep(50, deps.signal);
  }
}

/** The options of the prompt the worker shows now, and what each meaning looks like on its menus. */
export async function promptMenu(
  deps: Deps,
  worker: Worker,
): Promise<{ options: PromptOption[]; meanings: AnswerMeanings }> {
  const screen = (await deps.tmux.capture(worker.meta.name)) ?? "";
  return { options: await readOptions(deps, worker, screen), meanings: meaningsOf(worker) };
}

/** The menu's options, from the screen with its escapes when the provider's menus need them. */
async function readOptions(deps: Deps, worker: Worker, screen: string): Promise<PromptOption[]> {
  const spec = worker.provider.answer;
  const shown = spec?.escapes
    ? ((await deps.tmux.capture(worker.meta.name, { escapes: true })) ?? "")
    : screen;
  return (spec?.readMenu ?? readMenu)(shown);
}

function meaningsOf(worker: Worker): AnswerMeanings {
  return worker.provider.answer?.meanings ?? DEFAULT_MEANINGS;
}

/**
 * An answer holds the lock for the key's settle and the screen's reaction: ~1.5 s, up to ~6.5 s on
 * a TUI slow to redraw (REDRAW_MS).
 */
const ANSWER_WAIT_MS = 10_000;
const ANSWER_POLL_MS = 50;

async function holdAnswer(deps: Deps, name: string): Promise<Lock> {
  const until = deps.clock.now() + ANSWER_WAIT_MS;
  for (;;) {
    const lock = await deps.store.lock(name, "answer");
    if (lock) return lock;
    if (deps.clock.now() >= until || deps.signal?.aborted)
      throw new WorkerBusyError(
        `another answer to worker ${name} is still pressing its key; nothing was pressed`,
        {
          name,
        },
      );
    await deps.clock.sleep(ANSWER_POLL_MS, deps.signal);
  }
}

async function readAnswered(deps: Deps, name: string): Promise<Answered | null> {
  const text = await deps.store.readWorkerFile(name, ANSWERED);
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as Partial<Answered>;
    if (typeof value.inputId === "string" && typeof value.choice === "string" && typeof value.at === "string")
      return { inputId: value.inputId, choice: value.choice, at: value.at };
  } catch {
    // A torn or foreign file names no answer: the screen and the events decide alone.
  }
  return null;
}

async function writeAnswered(deps: Deps, name: string, answered: Answered): Promise<void> {
  await deps.store.writeWorkerFile(name, ANSWERED, `${JSON.stringify(answered)}\n`);
}

function isoNow(deps: Deps): string {
  return new Date(deps.clock.now()).toISOString();
}
