import { WorkerDeadError } from "../core/errors.ts";
import type { KeysResult } from "../core/outputs.ts";
import type { Deps } from "../core/ports.ts";
import type { KeysInput } from "../core/schemas.ts";
import { checkLiveness, loadWorker, type Worker } from "./worker.ts";

/**
 * Presses keys in the worker's pane: how a caller answers what `wait` reported as input (a
 * permission prompt: `1` approves, `Escape` denies) without attaching a terminal.
 */
export async function sendKeys(deps: Deps, input: KeysInput): Promise<KeysResult> {
  const worker = await loadWorker(deps, input.name);
  const live = await checkLiveness(deps, worker);
  if (!live.alive)
    throw new WorkerDeadError(`worker ${input.name} is not running (${live.why})`, {
      name: input.name,
      exit: live.exit,
    });
  const before = await deps.tmux.capture(input.name).catch(() => null);
  // claude drops keys that arrive within ~0.15 s of a prompt appearing (as with its trust dialog),
  // and a caller may answer the moment `wait` reported it.
  if (before !== null && worker.provider.classifyScreen(before).kind === "input")
    await deps.clock.sleep(PROMPT_SETTLE_MS, deps.signal);
  for (const key of input.keys) {
    if (input.literal) await deps.tmux.sendLiteral(input.name, key);
    else await deps.tmux.sendKeys(input.name, [key]);
  }
  await untilScreenReacts(deps, worker, before);
  return { name: input.name, sent: input.keys };
}

/** Long enough for a TUI to redraw after a key; a key that changes nothing costs this much. */
const REACT_MS = 1000;
const PROMPT_SETTLE_MS = 300;

/**
 * Returns once the screen has reacted: a prompt that was showing is gone, or else the screen changed
 * (spinner ticks aside). So a `wait` right after `keys 1` does not read the permission prompt that
 * was just answered as still pending (claude redraws a moment after the key).
 */
async function untilScreenReacts(deps: Deps, worker: Worker, before: string | null): Promise<void> {
  if (before === null) return;
  const { provider } = worker;
  const wasPrompt = provider.classifyScreen(before).kind === "input";
  const still = provider.stillScreen(before);
  const until = deps.clock.now() + REACT_MS;
  while (deps.clock.now() < until && !deps.signal?.aborted) {
    const screen = await deps.tmux.capture(worker.meta.name).catch(() => null);
    if (screen === null) return;
    if (wasPrompt ? provider.classifyScreen(screen).kind !== "input" : provider.stillScreen(screen) !== still)
      return;
    await deps.clock.sleep(25, deps.signal);
  }
}
