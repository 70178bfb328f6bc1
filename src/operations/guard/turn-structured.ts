import type { StructuredEntry } from "../../core/guard/record.ts";
import type { Deps } from "../../core/ports.ts";
import { assessTurn, findRecordSource } from "../../core/wait/turn.ts";
import { readEvents, type Worker } from "../worker/worker.ts";

/** The error a refused call is recorded with (the CLI's own answer to the model said the rest). */
export const REFUSED_CALL =
  "the CLI answered this StructuredOutput call itself (No such tool available): umbel's tool was still connecting";

/**
 * The turn's StructuredOutput calls: those umbel's server recorded (events/structured.jsonl), and
 * before them each call the CLI refused itself because the tool was not loaded yet (the
 * provider's transcript says so; claude under load), counted as rejected: claude -p counts every
 * call the model makes, and its fifth invalid one ends the request.
 */
export async function turnStructured(
  deps: Deps,
  worker: Worker,
  baseline: number,
): Promise<StructuredEntry[]> {
  const { provider, meta } = worker;
  if (!provider.refusedStructuredCalls) return deps.guards.readStructured(meta.name);
  const events = await readEvents(deps, provider, meta.name);
  const turn = assessTurn(provider, events, baseline);
  // Only a turn its submit named: without a prompt id the transcript's last turn may be another.
  const promptId = turn.status === "none" ? null : turn.promptId;
  const source = findRecordSource(provider, events);
  const transcript = source && promptId !== null ? await deps.records.read(source) : null;
  // Read last: a call recorded while the transcript was read is counted too.
  const recorded = await deps.guards.readStructured(meta.name);
  const refused = transcript === null ? 0 : provider.refusedStructuredCalls(transcript, promptId);
  if (refused === 0) return recorded;
  const entries: StructuredEntry[] = Array.from({ length: refused }, () => ({
    baseline,
    ok: false,
    errors: [REFUSED_CALL],
  }));
  return [...entries, ...recorded];
}
