import { stat } from "node:fs/promises";
import { basename } from "node:path";
import type { RecordPort, StorePort, TracePort, WatchPort } from "../core/ports.ts";
import { elapsedSince } from "./trace.ts";

/**
 * The real ports with the trace's eyes on them (deps.ts wraps them only when tracing is on, so an
 * untraced run calls the ports themselves): each hook line the first time this process reads it,
 * with how long ago the log was written (hook → seen latency); each fs.watch wake-up (an event or the
 * safety-net poll); each transcript read.
 */
export function traceStore(store: StorePort, trace: TracePort): StorePort {
  const seen = new Map<string, number>();
  return {
    ...store,
    async readHooksLog(name) {
      const log = await store.readHooksLog(name);
      const lines = log.split("\n").slice(0, -1);
      const before = seen.get(name) ?? 0;
      if (lines.length <= before) return log;
      seen.set(name, lines.length);
      const written = await stat(store.paths(name).hooksLog).then(
        (s) => s.mtimeMs,
        () => null,
      );
      const ago = written === null ? "" : ` (log written ${(Date.now() - written).toFixed(1)} ms ago)`;
      const fresh = lines.slice(before);
      // A log read for the first time may hold a long history: one line for it, the last event named.
      if (before === 0 && fresh.length > 8)
        trace.mark(`hooks ${name}: ${fresh.length} lines, last ${eventName(fresh.at(-1) ?? "")}${ago}`);
      else
        for (const [i, line] of fresh.entries())
          trace.mark(`hook ${eventName(line)} ${name} #${before + i}${ago}`);
      return log;
    },
  };
}

export function traceWatch(watch: WatchPort, trace: TracePort): WatchPort {
  return {
    dir(path) {
      const waker = watch.dir(path);
      return {
        async next(maxMs, signal) {
          const started = performance.now();
          await waker.next(maxMs, signal);
          const took = performance.now() - started;
          // Within 1 ms of the bound is the safety-net poll; earlier is a file event (or an abort).
          const why = took >= maxMs - 1 ? "poll" : signal?.aborted ? "abort" : "fs event";
          trace.mark(`wake ${basename(path)}: ${why} after ${took.toFixed(1)} ms`);
        },
        close: () => waker.close(),
      };
    },
  };
}

export function traceRecords(records: RecordPort, trace: TracePort): RecordPort {
  return {
    ...records,
    async read(source) {
      const started = performance.now();
      const text = await records.read(source);
      trace.mark(
        `transcript read ${basename(source.path)}: ${text === null ? "missing" : `${text.length} chars`}, ${elapsedSince(started)}`,
      );
      return text;
    },
    tail(source, offset, alsoWatch) {
      const tail = records.tail(source, offset, alsoWatch);
      return {
        ...tail,
        async read() {
          const lines = await tail.read();
          if (lines.length > 0) trace.mark(`transcript +${lines.length} lines ${basename(source.path)}`);
          return lines;
        },
      };
    },
  };
}

/** The hook's event name as the CLIs write it (claude, codex, gemini: hook_event_name; opencode's plugin: type). */
function eventName(line: string): string {
  return /"(?:hook_event_name|type)":"([A-Za-z._-]+)"/.exec(line)?.[1] ?? "?";
}
