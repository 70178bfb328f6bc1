import type { Deps } from "../../core/ports.ts";
import { lastSubmitIndex } from "../../core/wait/turn.ts";
import { currentTurn, readEvents, type Worker } from "../worker/worker.ts";

/** How long the CLI may take to close a limit's box once its key is pressed. */
const CLOSE_MS = 1500;
const POLL_MS = 100;

/**
 * The box a CLI opens after a usage limit (claude's /rate-limit-options, codex's "Approaching rate
 * limits") blocks the composer. `wait` closes it when it comes within its evidence window; a box
 * drawn later is closed here, before a prompt is pasted, and only once the turn is over (a box
 * during a turn, gemini's "Keep trying / Stop", belongs to `wait`). Returns the screen after.
 */
export async function closeLimitBox(deps: Deps, worker: Worker, screen: string): Promise<string> {
  const { provider, meta } = worker;
  const state = provider.classifyScreen(screen);
  if (state.kind !== "error" || !state.keys?.length || !provider.limits?.boxAfterMs) return screen;
  const events = await readEvents(deps, provider, meta.name);
  const last = lastSubmitIndex(provider, events);
  const turn = last === null ? null : (await currentTurn(deps, worker, events, last)).turn.status;
  if (turn !== "failure" && turn !== "stop") return screen;
  await deps.tmux.sendKeys(meta.name, [...state.keys]);
  const until = deps.clock.now() + CLOSE_MS;
  let now = screen;
  while (deps.clock.now() < until && !deps.signal?.aborted) {
    await deps.clock.sleep(POLL_MS, deps.signal);
    now = (await deps.tmux.capture(meta.name)) ?? now;
    if (provider.classifyScreen(now).kind !== "error") break;
  }
  return now;
}
