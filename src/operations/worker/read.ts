import { findGuard, guardOfSubmit, structuredOf } from "../../core/guard/record.ts";
import type { Deps } from "../../core/ports.ts";
import type { ReadInput } from "../../core/schemas.ts";
import { findRecordSource, findSessionId } from "../../core/wait/turn.ts";
import type { ReadResult } from "../../core/worker/outputs.ts";
import { viewWorker } from "./view.ts";
import { currentTurn, type Worker } from "./worker.ts";

/** The transcript may land after the Stop hook (a late flush); re-read it for this long. */
const SETTLE_MS = 3000;

/**
 * The final assistant text of the last turn (or of the turn after `after`). The Stop payload's own
 * final message is preferred; the transcript is used when it holds the same answer in full (claude's
 * last_assistant_message is only the last text block) or when the hook carried none. A guarded
 * turn's baseline reads its latest attempt (the answer its checks passed), and a structured worker's
 * turn brings the object it returned through StructuredOutput.
 */
export async function readAnswer(
  deps: Deps,
  input: ReadInput,
  /** The worker as the caller loaded it for this verb (read once), else loaded here. */
  loaded?: Worker,
): Promise<ReadResult> {
  const worker = await viewWorker(deps, loaded ?? input.name);
  const { events } = worker;
  const asked = input.after ?? worker.lastSubmit ?? 0;
  const records = await deps.guards.list(input.name);
  const guard =
    input.after === undefined
      ? (guardOfSubmit(records, worker.provider, events, asked)?.guard ?? null)
      : findGuard(records, asked);
  const baseline = guard?.turns.at(-1) ?? asked;
  const structured =
    worker.meta.structured === true
      ? (structuredOf(await deps.guards.readStructured(input.name), baseline).object ?? null)
      : null;
  // A turn the transcript says failed (codex fires no hook; gemini's AfterAgent looks like a stop).
  const { turn, transcriptPath, transcript } = await currentTurn(deps, worker, events, baseline);
  const promptId = turn.status === "none" ? null : turn.promptId;
  const base = {
    name: input.name,
    structured,
    turn: turn.status,
    promptId,
    sessionId: findSessionId(worker.provider, events),
    transcriptPath,
  };
  const hookMessage = turn.status === "stop" || turn.status === "failure" ? turn.message : null;
  const parse = async () => {
    const source = findRecordSource(worker.provider, events);
    const text = source ? await deps.records.read(source) : null;
    return text === null ? null : worker.provider.parseAnswer(text, promptId);
  };
  let parsed = transcript === null ? null : worker.provider.parseAnswer(transcript, promptId);
  if (turn.status === "failure") {
    const text = hookMessage ?? `provider error: ${turn.error}`;
    return {
      ...base,
      text,
      isError: true,
      empty: false,
      source: "hook",
      assistantMessages: parsed?.assistantMessages ?? 0,
    };
  }
  if (hookMessage !== null) {
    // The hook's message is trimmed (2.1.332: a reply ending in a space loses it); the transcript is exact.
    const full = parsed?.text?.trimEnd().endsWith(hookMessage.trimEnd()) ? parsed.text : hookMessage;
    return {
      ...base,
      text: full,
      isError: false,
      empty: false,
      source: full === hookMessage ? "hook" : "transcript",
      assistantMessages: parsed?.assistantMessages ?? 1,
    };
  }
  if (turn.status === "stop" && transcriptPath) {
    const until = deps.clock.now() + SETTLE_MS;
    while (!parsed?.text && deps.clock.now() < until && !deps.signal?.aborted) {
      await deps.clock.sleep(100, deps.signal);
      parsed = await parse();
    }
  }
  const text = parsed?.text ?? null;
  return {
    ...base,
    text: text ?? "",
    isError: false,
    empty: text === null && turn.status === "stop",
    source: text === null ? "none" : "transcript",
    assistantMessages: parsed?.assistantMessages ?? 0,
  };
}
