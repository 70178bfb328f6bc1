import { StateError } from "../../core/errors.ts";
import { parseQueue, type QueueFile } from "../../core/fleet/queue.ts";
import type { Deps } from "../../core/ports.ts";

/**
 * A worker's queue file (`send --queue`), read. Apart from queue.ts, which changes it: `status` and
 * `ls` read it, and need none of a send's delivery and guard planning.
 */
export const QUEUE_FILE = "queue.json";

export async function readQueue(deps: Deps, name: string): Promise<QueueFile> {
  const queue = parseQueue(await deps.store.readWorkerFile(name, QUEUE_FILE));
  if (queue === null) {
    const path = `${deps.store.paths(name).dir}/${QUEUE_FILE}`;
    throw new StateError(
      `the queue of worker ${name} is unreadable: ${path}; remove that file (its queued prompts are lost), or umbel kill ${name} --purge`,
      { name, path, fix: "remove that file (its queued prompts are lost)" },
    );
  }
  return queue;
}
