import { WorkerDeadError } from "../core/errors.ts";
import type { KeysInput } from "../core/schemas.ts";
import type { Deps } from "./context.ts";
import { checkLiveness, loadWorker } from "./worker.ts";

export type KeysResult = { name: string; sent: string[] };

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
  for (const key of input.keys) {
    if (input.literal) await deps.tmux.sendLiteral(input.name, key);
    else await deps.tmux.sendKeys(input.name, [key]);
  }
  return { name: input.name, sent: input.keys };
}
