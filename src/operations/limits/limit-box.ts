import type { Deps } from "../../core/ports.ts";
import { lastTurn, type WorkerView } from "../worker/view.ts";

/** How long the CLI may take to close a limit's box once its key is pressed. */
const CLOSE_MS = 1500;
const POLL_MS = 100;

/**
 * The box a CLI opens after a usage limit (claude's /rate-limit-options, codex's "Approaching rate
 * limits") blocks the composer. `wait` closes it when it comes within its evidence window; a box
 * drawn later is closed here, before a prompt is pasted, and only once the turn is over (a box
 * during a turn, gemini's "Keep trying / Stop", belongs to `wait`). Returns the screen after.
 */
export async function closeLimitBox(deps: Deps, view: WorkerView, screen: string): Promise<string> {
  const { provider, meta } = view;
  const state = provider.classifyScreen(screen);
  if (state.kind !== "error" || !state.keys?.length || !provider.limits?.boxAfterMs) return screen;
  const turn = (await lastTurn(deps, view))?.status ?? null;
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
