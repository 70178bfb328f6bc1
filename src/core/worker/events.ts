import { parseJsonObject } from "../common/json.ts";
import type { HookEvent, Provider } from "../providers/types.ts";

/**
 * `<session>/incarnation`: the id of the worker that has the session folder now, which its hook
 * command also carries (hooks/hook.sh appends only while the two agree).
 */
export const INCARNATION_FILE = "incarnation";

/**
 * The events log is one raw hook payload per line, appended by hooks/hook.sh. Only lines ended by a
 * newline count, so a line still being written is never half-read, and the count of complete lines
 * is the race-free baseline `send` hands to `wait`. Each provider's hook wire names the event.
 */
export function parseEvents(provider: Pick<Provider, "hookWire">, log: string, fromIndex = 0): HookEvent[] {
  const lines = completeLines(log);
  const events: HookEvent[] = [];
  for (let index = fromIndex; index < lines.length; index++) {
    events.push(parseEventLine(provider, lines[index] ?? "", index));
  }
  return events;
}

export function countEvents(log: string): number {
  return completeLines(log).length;
}

function completeLines(log: string): string[] {
  const end = log.lastIndexOf("\n");
  return end < 0 ? [] : log.slice(0, end).split("\n");
}

function parseEventLine(provider: Pick<Provider, "hookWire">, line: string, index: number): HookEvent {
  const record = parseJsonObject(line);
  if (record !== null) {
    return { index, name: provider.hookWire.eventName(record) ?? "unknown", payload: record };
  }
  // A hook that wrote something that is not a JSON object is kept as evidence.
  return { index, name: "invalid", payload: { raw: line.slice(0, 2000) } };
}
