import { join } from "node:path";
import type { Outcome } from "../core/outcome.ts";
import type { Deps, FileTail } from "../core/ports.ts";
import type { StreamMessage, TurnSummary, TurnTracker } from "../core/providers/transcript-types.ts";
import { findRecordSource } from "../core/turn.ts";
import { readAnswer } from "./read.ts";
import { sendPrompt } from "./send.ts";
import { waitForTurn } from "./wait.ts";
import { loadWorker, readEvents } from "./worker.ts";

export type PrintTurnInput = {
  name: string;
  prompt: string;
  maxTurns?: number | undefined;
  timeout?: number | undefined;
  idleTimeout?: number | undefined;
};

export type PrintTurn = {
  outcome: Outcome;
  /** --max-turns stopped the turn (the value), or null. */
  maxTurnsHit: number | null;
  summary: TurnSummary | null;
  /** The final answer (stop) or the error text (provider-error); "" otherwise. */
  text: string;
  sessionId: string | null;
};

/** How long the transcript may lag the hook that ended the turn (claude: turn_duration ~20-40 ms). */
const DRAIN_MS = 3000;
/** The folders are watched; this is only the safety net for coalesced fs events. */
const SAFETY_POLL_MS = 1000;

/**
 * One `umbel -p` turn on a ready worker: send, then wait for the outcome while following the
 * transcript (each new message goes to `onMessage` as it lands, in claude's stream-json shape).
 *
 * --max-turns: claude -p lets the model run N API turns, runs the tools of the Nth, and stops
 * before asking again. The interactive TUIs ignore the flag, so umbel stops the turn itself, with
 * the provider's halt hooks (events/halt-<Event>.json, printed by hooks/hook.sh):
 * - "hook" (claude, gemini): armed once the Nth assistant message appears, the hook after the next
 *   tool answers `{"continue":false}` and the CLI stops right after that tool (claude: no Stop
 *   hook, the transcript ends the turn with turn_duration; gemini: no AfterAgent, "Agent execution
 *   stopped"). If the halt came too late (an N+1th message appears), Escape interrupts instead.
 * - "interrupt" (codex): once the Nth message's tool results have all landed, umbel arms the halt
 *   hooks (codex: PreToolUse denies every call, so a next response already on its way runs no
 *   tool) and presses the interrupt keys; the wait sees an interrupted stop. A message that still
 *   lands is interrupted again.
 * A turn that ends on its own first keeps its answer (the Nth message was the final one).
 */
export async function runPrintTurn(
  deps: Deps,
  input: PrintTurnInput,
  onMessage: (message: StreamMessage) => void = () => {},
  /** Called once the prompt is taken, before any message (codex names its session only then). */
  onSent: () => Promise<void> = async () => {},
): Promise<PrintTurn> {
  const { name } = input;
  const worker = await loadWorker(deps, name);
  const events = deps.store.paths(name).events;
  const haltFiles = Object.entries(worker.provider.haltHooks?.(haltReason(input.maxTurns ?? 0)) ?? {}).map(
    ([event, output]) => ({ path: join(events, `halt-${event}.json`), text: `${JSON.stringify(output)}\n` }),
  );
  const disarm = () => Promise.all(haltFiles.map((file) => deps.files.remove(file.path)));
  const arm = () => Promise.all(haltFiles.map((file) => deps.files.writeAtomic(file.path, file.text)));
  await disarm();
  const before = findRecordSource(worker.provider, await readEvents(deps, worker.provider, name));
  const offset = before ? ((await deps.records.size(before)) ?? 0) : 0;
  const sent = await sendPrompt(deps, { name, prompt: input.prompt });
  await onSent();
  const tracker = worker.provider.trackTurn?.(sent.promptId) ?? null;
  // codex creates its rollout at the first prompt: a fresh worker names it only once the prompt is in.
  const source = findRecordSource(worker.provider, await readEvents(deps, worker.provider, name));
  const known = before !== null && source !== null && JSON.stringify(before) === JSON.stringify(source);
  const tail = source && tracker ? deps.records.tail(source, known ? offset : 0, [events]) : null;
  const halt = new AbortController();
  const signal = deps.signal ? AbortSignal.any([deps.signal, halt.signal]) : halt.signal;
  const follow = {
    armed: false,
    halted: false,
    drainUntil: null as null | (() => boolean),
    /** The text of the last assistant line followed (the drain's end: see below). */
    lastText: "",
  };

  const mode = worker.provider.maxTurnsHalt ?? "interrupt";
  const interruptKeys = [...(worker.provider.interruptKeys ?? ["Escape"])];
  let interruptedAt = 0;

  async function pump(t: FileTail, tr: TurnTracker): Promise<void> {
    for (const line of await t.read())
      for (const message of tr.push(line)) {
        onMessage(message);
        if (message.type === "assistant") follow.lastText = assistantText(message) ?? follow.lastText;
      }
    const max = input.maxTurns;
    if (max === undefined) return;
    const s = tr.summary();
    if (mode === "hook") {
      if (follow.halted) return;
      if (!follow.armed && s.assistantMessages >= max) {
        follow.armed = true;
        await arm();
      }
      if (follow.armed && (s.complete || s.assistantMessages > max)) {
        follow.halted = true;
        if (!s.complete) await deps.tmux.sendKeys(name, ["Escape"]).catch(() => undefined);
        halt.abort();
      }
      return;
    }
    if (s.complete || s.assistantMessages < max || s.assistantMessages <= interruptedAt) return;
    const toolsDone = s.stopReason === "tool_use" && s.toolsPending === 0;
    if (toolsDone || s.assistantMessages > max) {
      follow.halted = true;
      interruptedAt = s.assistantMessages;
      await arm();
      for (const key of interruptKeys) await deps.tmux.sendKeys(name, [key]).catch(() => undefined);
    }
  }

  const following = (async () => {
    if (!tail || !tracker) return;
    for (;;) {
      await pump(tail, tracker);
      if (follow.drainUntil?.()) return;
      await tail.next(SAFETY_POLL_MS);
    }
  })();

  let outcome: Outcome | undefined;
  try {
    outcome = await waitForTurn(
      { ...deps, signal },
      { name, after: sent.baseline, timeout: input.timeout, idleTimeout: input.idleTimeout },
    );
  } finally {
    // Drain what the turn wrote: up to the end marker after a stop, what is there otherwise. A
    // stop whose hook gave the answer is drained once the transcript holds that answer: claude
    // 2.1.332 writes the answer before Stop, then runs its stop hooks and writes its bookkeeping
    // lines and turn_duration 150-370 ms later (measured on the stub), which no -p output uses.
    const until = deps.clock.now() + DRAIN_MS;
    const hookAnswer = outcome?.reason === "stop" ? (outcome.evidence.message ?? null) : null;
    follow.drainUntil = () => {
      const s = tracker?.summary();
      const done = s?.complete === true || (s?.apiError !== null && s?.apiError !== undefined);
      const answered =
        hookAnswer !== null &&
        hookAnswer.trim() !== "" &&
        follow.lastText.trimEnd().endsWith(hookAnswer.trimEnd());
      return done || answered || deps.clock.now() >= until || !waitedForEnd(outcome);
    };
    tail?.poke();
    await following.catch(() => undefined);
    tail?.close();
    await disarm().catch(() => undefined);
  }
  // A stop that came first wins: the Nth message was the final answer (claude -p: success).
  const stoppedByUs =
    (outcome.reason === "aborted" && !deps.signal?.aborted) ||
    (outcome.reason === "stop" && outcome.evidence.interrupted === true);
  const maxTurnsHit = follow.halted && stoppedByUs ? (input.maxTurns ?? null) : null;
  const answer =
    maxTurnsHit === null && (outcome.reason === "stop" || outcome.reason === "provider-error")
      ? await readAnswer(deps, { name, after: sent.baseline })
      : null;
  return {
    outcome,
    maxTurnsHit,
    summary: tracker?.summary() ?? null,
    text: answer?.text ?? "",
    sessionId: answer?.sessionId ?? tracker?.summary().sessionId ?? null,
  };
}

/** claude -p's own words for the stop (the CLI shows them; the model may see them too). */
function haltReason(maxTurns: number): string {
  return `Reached maximum number of turns (${maxTurns})`;
}

/** The text blocks of a followed assistant line (claude -p's stream-json shape), or null when it has none. */
function assistantText(message: StreamMessage): string | null {
  const content = (message.message as { content?: unknown } | undefined)?.content;
  if (!Array.isArray(content)) return null;
  const texts = content.flatMap((block: { type?: unknown; text?: unknown }) =>
    block?.type === "text" && typeof block.text === "string" ? [block.text] : [],
  );
  return texts.length > 0 ? texts.join("\n\n") : null;
}

/** Outcomes after which the transcript still gets the turn's last lines. */
function waitedForEnd(outcome: Outcome | undefined): boolean {
  return outcome?.reason === "stop" || outcome?.reason === "provider-error";
}
