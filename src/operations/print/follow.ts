import { join } from "node:path";
import type { Deps, FileTail } from "../../core/ports.ts";
import { drainDone, maxTurnsHit as hitMaxTurns, initialHalt, stepHalt } from "../../core/print/follow.ts";
import type {
  RecordSource,
  StreamMessage,
  TurnSummary,
  TurnTracker,
} from "../../core/providers/transcript-types.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { findRecordSource } from "../../core/wait/turn.ts";
import type { WaitBudget } from "../../core/wait/types.ts";
import { readStatusLine } from "../limits/cost.ts";
import type { WaitProgress } from "../wait/wait.ts";
import { waitForTurn } from "../wait/wait.ts";
import { readEvents, type Worker } from "../worker/worker.ts";

export type FollowInput = {
  maxTurns?: number | undefined;
  timeout?: number | undefined;
  idleTimeout?: number | undefined;
  maxTokens?: number | undefined;
};

/** A turn's limits as followTurn applies them: the caller's, a cost budget, and whether cost is read. */
export type FollowLimits = FollowInput & {
  /** armEarly armed the halt hooks before the prompt went in (--max-turns 1): keep them armed. */
  preArmed?: boolean | undefined;
  /** -p --max-budget-usd: the run's cost budget, counted from the cost when the run began. */
  cost?: Pick<WaitBudget, "maxCostUsd" | "costBaseUsd"> | undefined;
  /** Keep the statusline JSON as the turn ended (json output, a budget: the run's cost). */
  wantCost?: boolean | undefined;
  /** A turn that ended without its end hook ends the drain at once (core/print/follow.ts). */
  skipInterruptedDrain?: boolean | undefined;
};

/** The provider's statusline JSON as a turn ended, and when (claude rewrites it ~0.4 s after Stop). */
export type StatusLineAtEnd = { readonly text: string | null; readonly at: number };

/** One turn as `umbel -p` follows it: its outcome and what its transcript said. */
export type FollowedTurn = {
  outcome: Outcome;
  /** --max-turns stopped the turn (the value), or null. */
  maxTurnsHit: number | null;
  summary: TurnSummary | null;
  /** With `wantCost`: the statusline JSON as the turn ended. */
  statusLine: StatusLineAtEnd | null;
};

/**
 * Where the transcript stood before a prompt was sent: its record (a file, or opencode's database;
 * null before the first) and size.
 */
export type TranscriptMark = { source: RecordSource | null; offset: number };

/** How long the transcript may lag the hook that ended the turn (claude: turn_duration ~20-40 ms). */
const DRAIN_MS = 3000;
/** The folders are watched; this is only the safety net for coalesced fs events. */
const SAFETY_POLL_MS = 1000;

/** The transcript's place before a prompt is sent: its new lines are that prompt's turn. */
export async function markTranscript(deps: Deps, worker: Worker): Promise<TranscriptMark> {
  const source = findRecordSource(worker.provider, await readEvents(deps, worker.provider, worker.meta.name));
  return { source, offset: source ? ((await deps.records.size(source)) ?? 0) : 0 };
}

/**
 * Waits for a sent turn's outcome while following its transcript (each new message goes to
 * `onMessage` as it lands, in claude's stream-json shape).
 *
 * --max-turns: umbel stops the turn itself with the provider's halt hooks or interrupt keys; what
 * to do when is the pure machine of core/print/follow.ts (stepHalt, drainDone, maxTurnsHit).
 */
export async function followTurn(
  deps: Deps,
  worker: Worker,
  sent: { baseline: number; promptId: string | null },
  mark: TranscriptMark,
  input: FollowLimits,
  onMessage: (message: StreamMessage) => void,
  /** A guarded turn: wait's progress, and umbel's own halt (its end still drains the transcript). */
  guard?: { onProgress: (p: WaitProgress) => void; halt: AbortSignal },
): Promise<FollowedTurn> {
  const { name } = worker.meta;
  const events = deps.store.paths(name).events;
  const { arm, disarm } = haltHooks(deps, worker, input.maxTurns ?? 0);
  if (!input.preArmed) await disarm();
  const tracker = worker.provider.trackTurn?.(sent.promptId) ?? null;
  // codex creates its rollout at the first prompt: a fresh worker names it only once the prompt is in.
  const source = findRecordSource(worker.provider, await readEvents(deps, worker.provider, name));
  const before = mark.source;
  const known = before !== null && source !== null && JSON.stringify(before) === JSON.stringify(source);
  const tail = source && tracker ? deps.records.tail(source, known ? mark.offset : 0, [events]) : null;
  const stopWait = new AbortController();
  const signal = AbortSignal.any([
    ...(deps.signal ? [deps.signal] : []),
    stopWait.signal,
    ...(guard ? [guard.halt] : []),
  ]);
  // What the pump loop and the wait share: the machine's state, the last answer text, and once the
  // wait is over, when the drain ends (core/print/follow.ts decides; this only carries it out).
  let halt = initialHalt(input.preArmed === true);
  let lastText = "";
  const drain: { done: (() => boolean) | null } = { done: null };
  const mode = worker.provider.maxTurnsHalt ?? "interrupt";
  const interruptKeys = [...(worker.provider.interruptKeys ?? ["Escape"])];

  async function pump(t: FileTail, tr: TurnTracker): Promise<void> {
    for (const line of await t.read())
      for (const message of tr.push(line)) {
        onMessage(message);
        if (message.type === "assistant") lastText = assistantText(message) ?? lastText;
      }
    const step = stepHalt(mode, input.maxTurns, halt, tr.summary());
    halt = step.state;
    for (const action of step.actions) {
      if (action === "arm") await arm();
      else if (action === "escape") await deps.tmux.sendKeys(name, ["Escape"]).catch(() => undefined);
      else if (action === "interrupt")
        for (const key of interruptKeys) await deps.tmux.sendKeys(name, [key]).catch(() => undefined);
      else stopWait.abort();
    }
  }

  const following = (async () => {
    if (!tail || !tracker) return;
    for (;;) {
      await pump(tail, tracker);
      if (drain.done?.()) return;
      await tail.next(SAFETY_POLL_MS);
    }
  })();

  let outcome: Outcome | undefined;
  let statusLine: StatusLineAtEnd | null = null;
  try {
    outcome = await waitForTurn(
      { ...deps, signal },
      {
        name,
        after: sent.baseline,
        timeout: input.timeout,
        idleTimeout: input.idleTimeout,
        maxTokens: input.maxTokens,
      },
      guard?.onProgress,
      // The wait reads the worker itself: handing it this one shifts the in-memory world's virtual
      // clock (its follower and its wait advance one shared time) past the marker a unit test pins.
      input.cost ? { cost: input.cost } : {},
    );
    // The statusline as the turn ended: claude rewrites it ~0.4 s after its Stop (measured).
    if (input.wantCost) statusLine = { text: await readStatusLine(deps, name), at: deps.clock.now() };
  } finally {
    // Drain what the turn wrote (core/print/follow.ts drainDone says until when).
    const ended = outcome;
    const until = deps.clock.now() + DRAIN_MS;
    const drainFrom = deps.clock.now();
    drain.done = () => {
      const done = drainDone({
        outcome: ended,
        guardHalted: guard?.halt.aborted === true,
        summary: tracker?.summary() ?? null,
        lastText,
        now: deps.clock.now(),
        until,
        skipInterrupted: input.skipInterruptedDrain === true,
      });
      if (done) {
        const s = tracker?.summary();
        deps.trace.mark(
          `follow ${name}: drained in ${(deps.clock.now() - drainFrom).toFixed(1)} ms (complete ${s?.complete}, timings pending ${s?.timingsPending ?? 0}, answer in ${lastText !== ""})`,
        );
      }
      return done;
    };
    tail?.poke();
    await following.catch(() => undefined);
    tail?.close();
    await disarm().catch(() => undefined);
  }
  const maxTurnsHit = hitMaxTurns(halt, outcome, deps.signal?.aborted === true, input.maxTurns);
  return { outcome, maxTurnsHit, summary: tracker?.summary() ?? null, statusLine };
}

/** The provider's halt hook files for --max-turns (events/halt-<Event>.json, printed by hooks/hook.sh). */
function haltHooks(deps: Deps, worker: Worker, maxTurns: number) {
  const events = deps.store.paths(worker.meta.name).events;
  const files = Object.entries(worker.provider.haltHooks?.(haltReason(maxTurns)) ?? {}).map(
    ([event, output]) => ({ path: join(events, `halt-${event}.json`), text: `${JSON.stringify(output)}\n` }),
  );
  return {
    arm: () => Promise.all(files.map((file) => deps.files.writeAtomic(file.path, file.text))),
    disarm: () => Promise.all(files.map((file) => deps.files.remove(file.path))),
  };
}

/**
 * --max-turns 1 with halt hooks (claude, gemini): armed before the prompt goes in, the hook after the
 * first message's tool stops the CLI however fast that tool was. Armed once the message was seen, a
 * fast tool's PostToolUse could beat it under load and the model answered again (the parity test's
 * --max-turns case, at load ~14). Returns whether it armed; `undo` removes them if the send fails.
 */
export async function armEarly(
  deps: Deps,
  worker: Worker,
  maxTurns: number | undefined,
): Promise<{ armed: boolean; undo: () => Promise<void> }> {
  const hooks = haltHooks(deps, worker, maxTurns ?? 0);
  if (maxTurns !== 1 || worker.provider.maxTurnsHalt !== "hook")
    return { armed: false, undo: async () => undefined };
  await hooks.arm();
  return { armed: true, undo: async () => void (await hooks.disarm()) };
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
