import { z } from "zod";
import { parseJson } from "../common/json.ts";
import { GuardRecord } from "../guard/record.ts";
import { SendResult } from "../worker/outputs.ts";

/**
 * `send --queue`: prompts for a busy worker wait in `queue.json` in its session dir and are sent in
 * order by the worker's own end-of-turn hook (DRAIN_HOOK_COMMAND, fleet/drain.ts) or by the next `send` or `wait`
 * that sees the worker idle, each under the worker's send lock: no daemon. The reads (`status`,
 * `ls`, `read`) send nothing. A sent entry keeps the baseline of its turn (for `wait --after` and
 * `read --after`); the last SENT_KEPT stay as a record.
 */

export const QueueEntry = z.object({
  id: z.string().describe("The queued prompt's id (q-…)"),
  state: z
    .enum(["queued", "sent", "failed"])
    .describe("queued: waiting for the worker · sent: delivered · failed: not taken (see error)"),
  queuedAt: z.string().describe("When it was queued (ISO 8601)"),
  baseline: z.number().int().optional().describe("Once sent: its turn's baseline, for wait/read --after"),
  error: z.string().optional().describe("Why it was not taken (failed)"),
});
export type QueueEntry = z.infer<typeof QueueEntry>;

/** A queued prompt's guardrails (send --queue --json-schema/--accept), recorded with its turn once sent. */
const QueuedGuard = GuardRecord.pick({
  jsonSchema: true,
  accept: true,
  maxAttempts: true,
  acceptTimeoutMs: true,
});

/**
 * queue.json: the entries in order, each with its prompt text and its guardrails (never shown by
 * status). The text is what is typed: a schema's note is already appended.
 */
const QueueFile = z.object({
  entries: z.array(QueueEntry.extend({ prompt: z.string(), guard: QueuedGuard.optional() })),
});
export type QueueFile = z.infer<typeof QueueFile>;
type Stored = QueueFile["entries"][number];

/** Sent and failed entries kept as a record (the queued ones are all kept). */
const SENT_KEPT = 20;

/** The file's entries; a missing file is an empty queue, an unreadable one null (a state error). */
export function parseQueue(text: string | null): QueueFile | null {
  if (text === null) return { entries: [] };
  const parsed = QueueFile.safeParse(parseJson(text));
  return parsed.success ? parsed.data : null;
}

export function renderQueue(queue: QueueFile): string {
  const done = queue.entries.filter((e) => e.state !== "queued");
  const dropped = new Set(done.slice(0, Math.max(0, done.length - SENT_KEPT)));
  return `${JSON.stringify({ entries: queue.entries.filter((e) => !dropped.has(e)) }, null, 2)}\n`;
}

export function nextQueued(queue: QueueFile): Stored | null {
  return queue.entries.find((e) => e.state === "queued") ?? null;
}

export function pendingCount(queue: QueueFile): number {
  return queue.entries.filter((e) => e.state === "queued").length;
}

export function withEntry(queue: QueueFile, entry: Stored): QueueFile {
  return { entries: [...queue.entries, entry] };
}

/** The queue with entry `id` changed (sent with its baseline, or failed with why). */
export function settle(queue: QueueFile, id: string, change: Partial<Stored>): QueueFile {
  return { entries: queue.entries.map((e) => (e.id === id ? { ...e, ...change } : e)) };
}

/** What status shows: the entries without their prompts. */
export function publicEntries(queue: QueueFile): QueueEntry[] {
  return queue.entries.map(({ prompt: _prompt, guard: _guard, ...entry }) => entry);
}

/** A queued prompt umbel sent: its id and its turn's baseline. */
export const SentFromQueue = z
  .object({
    id: z.string().describe("The queued prompt's id"),
    baseline: z.number().int().describe("Its turn's baseline: wait/read --after it"),
  })
  .describe("The queued prompt umbel sent once this turn ended (send --queue)");
export type SentFromQueue = z.infer<typeof SentFromQueue>;

/** send's answer, queued or sent: a queued prompt has no baseline yet. */
export const SendOutput = SendResult.extend({
  baseline: SendResult.shape.baseline
    .nullable()
    .describe("The events log's line count before this prompt (null while it waits in the queue)"),
  queued: z
    .object({
      id: z.string().describe("The queued prompt's id"),
      position: z.number().int().describe("Prompts ahead of it (0: next, or sent at once)"),
      state: z.enum(["queued", "sent"]).describe("queued: waiting for the worker · sent: delivered at once"),
    })
    .optional()
    .describe("With queue: where the prompt is"),
});
export type SendOutput = z.infer<typeof SendOutput>;
