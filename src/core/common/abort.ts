import { AbortedError } from "../errors.ts";

export function throwIfAborted(signal: AbortSignal | undefined, what: string): void {
  if (signal?.aborted) throw new AbortedError(`${what} was interrupted`);
}
