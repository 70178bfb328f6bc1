import { DEFAULT_MEANINGS, inputIdOf, planAnswer, readMenu, showsPrompt } from "../core/answer.ts";
import type { AnswerInput, AnswerResult } from "../core/answer-schema.ts";
import { NoPromptError, PromptGoneError, UsageError, WorkerDeadError } from "../core/errors.ts";
import type { Deps } from "../core/ports.ts";
import { screenTail } from "../core/screen.ts";
import { lastSubmitIndex } from "../core/turn.ts";
import { sendKeys } from "./keys.ts";
import { checkLiveness, currentTurn, loadWorker, readEvents } from "./worker.ts";

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
  const options = (provider.answer?.readMenu ?? readMenu)(screen);
  const plan = planAnswer(options, input.choice, provider.answer?.meanings ?? DEFAULT_MEANINGS);
  if (!plan.ok) throw new UsageError(`worker ${name}: ${plan.reason}`, { name, choice: input.choice });
  await sendKeys(deps, { name, keys: [...plan.keys] });
  return {
    name,
    choice: input.choice,
    prompt: shown.kind === "input" ? shown.text : (pending?.text ?? ""),
    inputId: onScreen && pending ? pending.inputId : null,
    option: plan.option ? { number: plan.option.number, label: plan.option.label } : null,
    keys: [...plan.keys],
    elapsedMs: deps.clock.now() - started,
  };
}
