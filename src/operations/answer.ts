import { DEFAULT_MEANINGS, inputIdOf, planAnswer, readMenu, showsPrompt } from "../core/answer.ts";
import type { AnswerInput, AnswerResult } from "../core/answer-schema.ts";
import {
  NoPromptError,
  PromptGoneError,
  UsageError,
  WorkerBusyError,
  WorkerDeadError,
} from "../core/errors.ts";
import type { Deps, Lock } from "../core/ports.ts";
import { screenTail } from "../core/screen.ts";
import { lastSubmitIndex } from "../core/turn.ts";
import { sendKeys } from "./keys.ts";
import { checkLiveness, currentTurn, loadWorker, readEvents } from "./worker.ts";

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
    return await answerHeld(deps, input, started);
  } finally {
    await lock.release();
  }
}

/** The file that names the last prompt answered (its id, the choice, when): one answer per id. */
const ANSWERED = "answered.json";
type Answered = { readonly inputId: string; readonly choice: string; readonly at: string };

async function answerHeld(deps: Deps, input: AnswerInput, started: number): Promise<AnswerResult> {
  const worker = await loadWorker(deps, input.name);
  const { name } = worker.meta;
  const { provider } = worker;
  const events = await readEvents(deps, provider, name);
  const last = lastSubmitIndex(provider, events);
  const turn = last === null ? null : (await currentTurn(deps, worker, events, last)).turn;
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
  const options = (provider.answer?.readMenu ?? readMenu)(screen);
  const plan = planAnswer(options, input.choice, provider.answer?.meanings ?? DEFAULT_MEANINGS);
  if (!plan.ok) throw new UsageError(`worker ${name}: ${plan.reason}`, { name, choice: input.choice });
  const inputId = onScreen && pending ? pending.inputId : null;
  // Recorded before the key: a caller that dies after pressing still leaves the id answered.
  if (inputId !== null) await writeAnswered(deps, name, { inputId, choice: input.choice, at: isoNow(deps) });
  // sendKeys returns once the prompt has left the screen (or its bound passed), still under the lock.
  await sendKeys(deps, { name, keys: [...plan.keys] });
  return {
    name,
    choice: input.choice,
    prompt: shown.kind === "input" ? shown.text : (pending?.text ?? ""),
    inputId,
    option: plan.option ? { number: plan.option.number, label: plan.option.label } : null,
    keys: [...plan.keys],
    elapsedMs: deps.clock.now() - started,
  };
}

/** An answer holds the lock for the key's settle and the screen's reaction: ~1.5 s at most. */
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
