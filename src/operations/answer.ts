import { DEFAULT_MEANINGS, inputIdOf, planAnswer, readMenu, showsPrompt } from "../core/answer.ts";
import type { AnswerInput, AnswerResult } from "../core/answer-schema.ts";
import {
  DeliveryError,
  NoPromptError,
  PromptGoneError,
  UsageError,
  WorkerDeadError,
} from "../core/errors.ts";
import type { Deps } from "../core/ports.ts";
import { screenTail } from "../core/screen.ts";
import { lastSubmitIndex } from "../core/turn.ts";
import { sendKeys } from "./keys.ts";
import { checkLiveness, currentTurn, loadWorker, readEvents, type Worker } from "./worker.ts";

/**
 * Answers the prompt the worker shows by meaning (allow, always, deny, an option): the provider's
 * menu says which keys. With `inputId` it answers only that very prompt: when the worker's pending
 * prompt has another id, or its screen no longer shows it, nothing is pressed (PromptGoneError, exit 4).
 */
export async function answerPrompt(deps: Deps, input: AnswerInput): Promise<AnswerResult> {
  const started = deps.clock.now();
  const worker = await loadWorker(deps, input.name);
  const { name } = worker.meta;
  const { provider } = worker;
  const live = await checkLiveness(deps, worker);
  if (!live.alive)
    throw new WorkerDeadError(`worker ${name} is not running (${live.why})`, { name, exit: live.exit });
  const events = await readEvents(deps, provider, name);
  const last = lastSubmitIndex(provider, events);
  const turn = last === null ? null : (await currentTurn(deps, worker, events, last)).turn;
  const pending = turn?.status === "input" ? { inputId: inputIdOf(turn), text: turn.text } : null;
  const screen = (await deps.tmux.capture(name)) ?? "";
  const shown = provider.classifyScreen(screen);
  const onScreen = shown.kind === "input" && (pending === null || showsPrompt(screen, pending.text));
  if (input.inputId !== undefined) {
    if (pending?.inputId !== input.inputId || !onScreen) {
      const now = pending && onScreen ? `; it now asks ${pending.inputId}: ${pending.text}` : "";
      throw new PromptGoneError(
        `worker ${name} no longer shows prompt ${input.inputId}${now}; nothing was pressed`,
        {
          name,
          inputId: input.inputId,
          current: pending && onScreen ? pending.inputId : null,
          screen: screenTail(screen),
        },
      );
    }
  } else if (shown.kind !== "input") {
    throw new NoPromptError(`worker ${name} shows no prompt to answer; nothing was pressed`, {
      name,
      screen: screenTail(screen),
    });
  }
  const plan = planAnswer(await readOptions(deps, worker, screen), input.choice, meaningsOf(worker));
  if (!plan.ok) throw new UsageError(`worker ${name}: ${plan.reason}`, { name, choice: input.choice });
  await sendKeys(deps, { name, keys: [...plan.keys] });
  const keys = [...plan.keys];
  if (plan.confirm !== undefined) keys.push(...(await answerConfirmation(deps, worker, plan.confirm, keys)));
  return {
    name,
    choice: input.choice,
    prompt: shown.kind === "input" ? shown.text : (pending?.text ?? ""),
    inputId: onScreen && pending ? pending.inputId : null,
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

/** The menu's options, from the screen with its escapes when the provider's menus need them. */
async function readOptions(deps: Deps, worker: Worker, screen: string) {
  const spec = worker.provider.answer;
  const shown = spec?.escapes
    ? ((await deps.tmux.capture(worker.meta.name, { escapes: true })) ?? "")
    : screen;
  return (spec?.readMenu ?? readMenu)(shown);
}

function meaningsOf(worker: Worker) {
  return worker.provider.answer?.meanings ?? DEFAULT_MEANINGS;
}
