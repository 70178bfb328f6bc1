import { UsageError, WorkerDeadError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { checkLiveness, loadWorker } from "./worker.ts";

/** Hands the caller's terminal to the worker's pane (detach with the tmux prefix, C-b d). */
export async function attachWorker(deps: Deps, name: string, isTty: boolean): Promise<number> {
  const worker = await loadWorker(deps, name);
  if (!isTty) throw new UsageError("attach needs a terminal (stdin and stdout must be a TTY)");
  const live = await checkLiveness(deps, worker);
  if (!live.alive && live.why !== "pane-dead" && live.why !== "exited") {
    throw new WorkerDeadError(`worker ${name} is not running (${live.why})`, { name });
  }
  return deps.tmux.attach(name);
}
