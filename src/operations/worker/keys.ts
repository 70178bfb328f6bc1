import { WorkerDeadError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import type { ScreenState } from "../../core/providers/types.ts";
import type { KeysInput } from "../../core/schemas.ts";
import { countEvents, parseEvents } from "../../core/worker/events.ts";
import type { KeysResult } from "../../core/worker/outputs.ts";
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
  const asked = before === null ? null : worker.provider.classifyScreen(before);
  const log = deps.store.paths(input.name).hooksLog;
  const seen = asked?.kind === "input" ? await logSize(deps, log) : 0;
  const events = asked?.kind === "input" ? countEvents(await deps.store.readHooksLog(input.name)) : 0;
  // claude drops keys that arrive within ~0.15 s of a prompt appearing (as with its trust dialog),
  // and a caller may answer the moment `wait` reported it.
  if (asked?.kind === "input") await deps.clock.sleep(PROMPT_SETTLE_MS, deps.signal);
  for (const key of input.keys) {
    if (input.literal) await deps.tmux.sendLiteral(input.name, key);
    else await deps.tmux.sendKeys(input.name, [key]);
  }
  if (before !== null && asked !== null)
    await untilScreenReacts(deps, worker, { before, asked, log, seen, events });
  return { name: input.name, sent: input.keys };
}

/** Long enough for a TUI to redraw after a key; a key that changes nothing costs this much. */
const REACT_MS = 1000;
/**
 * How long a prompt the keys answered may stay drawn: a TUI slow to redraw on a loaded machine
 * (gemini's box stayed > 1 s after its key; claude's permission prompt ~2 s) kept it on screen when
 * the keys returned, and a `wait` right after read that answered prompt as still pending (input,
 * at once, the same inputId).
 */
const REDRAW_MS = 5000;
const PROMPT_SETTLE_MS = 300;
const POLL_MS = 25;

/**
 * Returns once the screen has reacted to the keys. On a prompt: the prompt is gone or another one
 * shows, or a hook event after the keys announced the next prompt (it can have the same text), or, after
 * REACT_MS, the screen changed with the prompt kept (a key that moves within it, as Down in a
 * menu); REDRAW_MS at most (a key the TUI lost: the caller's wait reports the prompt again, as it
 * still is). Elsewhere: the screen changed (spinner ticks aside), REACT_MS at most.
 */
async function untilScreenReacts(
  deps: Deps,
  worker: Worker,
  look: {
    readonly before: string;
    readonly asked: ScreenState;
    /** The events log and its size before the keys: it grows with the next hook event. */
    readonly log: string;
    readonly seen: number;
    /** The events in the log before the keys (the next one's index). */
    readonly events: number;
  },
): Promise<void> {
  const { provider } = worker;
  const { name } = worker.meta;
  const { asked } = look;
  const still = provider.stillScreen(look.before);
  const started = deps.clock.now();
  const bound = started + (asked.kind === "input" ? REDRAW_MS : REACT_MS);
  let size = look.seen;
  while (deps.clock.now() < bound && !deps.signal?.aborted) {
    const screen = await deps.tmux.capture(name).catch(() => null);
    if (screen === null) return;
    const changed = provider.stillScreen(screen) !== still;
    if (asked.kind !== "input") {
      if (changed) return;
    } else {
      const shown = provider.classifyScreen(screen);
      if (shown.kind !== "input" || shown.text !== asked.text) return;
      if (changed && deps.clock.now() - started >= REACT_MS) return;
      // Only an event that asks again ends it: the tool's own events (the prompt was answered) come
      // before a loaded TUI's redraw, and an answered prompt still drawn reads as a new one.
      const now = await logSize(deps, look.log);
      if (now > size) {
        size = now;
        if (asksAgain(worker, await deps.store.readHooksLog(name), look.events)) return;
      }
    }
    await deps.clock.sleep(POLL_MS, deps.signal);
  }
}

/**
 * Whether an event after `from` is a new prompt (PermissionRequest, …); claude's permission_prompt
 * Notification repeats the prompt already asked (~1 s after it), so it is not one.
 */
function asksAgain(worker: Worker, log: string, from: number): boolean {
  return parseEvents(worker.provider, log, from).some((e) => {
    const signal = worker.provider.interpretEvent(e);
    return signal.kind === "input" && signal.repeats !== true;
  });
}

async function logSize(deps: Deps, path: string): Promise<number> {
  return (await deps.files.size(path).catch(() => null)) ?? 0;
}
