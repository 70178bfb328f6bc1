import { AbortedError, SpawnFailedError } from "../../core/errors.ts";
import { MAX_INVALID_CALLS } from "../../core/guard/decide.ts";
import { compileSchema, schemaMismatchText } from "../../core/guard/json-schema.ts";
import { structuredOf } from "../../core/guard/record.ts";
import type { Deps } from "../../core/ports.ts";
import { loadWorker } from "../worker/worker.ts";
import { turnStructured } from "./turn-structured.ts";

/** The file the server writes once the worker's CLI has connected to it (spawn waits for it). */
const SERVER_READY = "server-ready";

function serverReadyPath(deps: Deps, name: string): string {
  return deps.guards.path(name, SERVER_READY);
}

/** A CLI can connect late, after its worker was purged: the mark never makes its directory again. */
export async function markServerReady(deps: Deps, name: string): Promise<void> {
  await deps.guards.writeFile(name, SERVER_READY, `${deps.clock.now()}\n`);
}

/**
 * A --structured worker is ready once its CLI has connected to umbel's StructuredOutput server: the
 * TUIs start MCP servers beside their own startup, and claude 2.1.332 drew its idle screen ~200 ms
 * before (a prompt sent then had no such tool).
 */
export async function awaitStructuredServer(deps: Deps, name: string, deadline: number): Promise<void> {
  const marker = serverReadyPath(deps, name);
  while ((await deps.files.readText(marker)) === null) {
    if (deps.signal?.aborted) throw new AbortedError("spawn was interrupted", { name });
    if (deps.clock.now() >= deadline)
      throw new SpawnFailedError(
        `worker ${name}'s CLI never connected to umbel's StructuredOutput server (spawn --structured)`,
        { name, marker },
      );
    await deps.clock.sleep(50, deps.signal);
  }
}

/** claude -p's tool answer to an object that matched (2.1.332). */
const ACCEPTED = "Structured output provided successfully";
const NOT_ASKED =
  "No structured output was asked for in this turn; answer in text. (StructuredOutput is for turns sent with a JSON Schema.)";

/**
 * One call of the StructuredOutput tool a --structured worker runs (umbel's MCP server): the object
 * is checked against the schema of the turn in flight and recorded either way, in
 * events/structured.jsonl (files as IPC: the write wakes whoever waits for the turn). An invalid
 * object is answered with its validation errors, so the model can try again.
 */
export async function recordStructuredCall(
  deps: Deps,
  name: string,
  object: Record<string, unknown>,
): Promise<{ ok: boolean; text: string; rejectedFor?: number }> {
  const turn = await deps.guards.readTurnSchema(name);
  if (turn?.schema == null) return { ok: false, text: NOT_ASKED };
  const errors = compileSchema(turn.schema)(object);
  if (errors.length > 0) {
    await deps.guards.appendStructured(name, { baseline: turn.baseline, ok: false, errors });
    return { ok: false, text: schemaMismatchText(errors), rejectedFor: turn.baseline };
  }
  await deps.guards.appendStructured(name, { baseline: turn.baseline, ok: true, object });
  return { ok: true, text: ACCEPTED };
}

/**
 * How long the call that exhausts the retries (the fifth invalid one) waits before it is answered.
 * claude -p ends its request at that call; through the TUI umbel interrupts the worker then
 * (guard-turn.ts), and an answer given at once let the model make one more request before the
 * interrupt landed (measured under load: num_turns 7 where claude -p has 6). The CLI cancels the call
 * on the interrupt; the bound only keeps a CLI that never does from waiting long.
 */
export const EXHAUSTED_HOLD_MS = 5_000;

/** The tool's answer to one call (the server's handler): recorded, then given, held if it was the last. */
export async function answerStructuredCall(
  deps: Deps,
  name: string,
  object: Record<string, unknown>,
  cancelled: AbortSignal,
): Promise<{ ok: boolean; text: string }> {
  const { ok, text, rejectedFor } = await recordStructuredCall(deps, name, object);
  if (rejectedFor !== undefined) {
    // The calls the CLI refused itself count too (turn-structured.ts): the fifth is the fifth.
    const worker = await loadWorker(deps, name).catch(() => null);
    const entries = worker
      ? await turnStructured(deps, worker, rejectedFor)
      : await deps.guards.readStructured(name);
    const { rejected } = structuredOf(entries, rejectedFor);
    if (rejected >= MAX_INVALID_CALLS) await deps.clock.sleep(EXHAUSTED_HOLD_MS, cancelled);
  }
  return { ok, text };
}
