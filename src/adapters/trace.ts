import { appendFileSync, writeSync } from "node:fs";
import type { TracePort } from "../core/ports.ts";

/**
 * The timeline behind `UMBEL_TRACE=1` and `--trace`: where a turn's time goes (module load, every
 * tmux call, each hook line as it is seen, transcript reads, the operations' phases), for when a
 * vendor release makes a turn slow. Each mark is one line on stderr (stdout never changes), stamped
 * with `performance.now()`, which Bun counts from the process's start (measured: 2-3 ms before the
 * first line of a compiled umbel runs). Off, it is a constant no-op object.
 */
export const NO_TRACE: TracePort = { on: false, mark: () => undefined };

/**
 * UMBEL_TRACE unset, "" or "0": off (unless `--trace` forces it to stderr); an absolute path: lines
 * are appended to that file (for an MCP server or a detached pool refill, whose stderr nobody reads);
 * anything else: stderr.
 */
export function createTrace(setting: string | undefined, forced = false): TracePort {
  const wanted = setting !== undefined && setting !== "" && setting !== "0";
  if (!wanted && !forced) return NO_TRACE;
  const file = wanted && setting.startsWith("/") ? setting : null;
  const prefix = `umbel[${process.pid}]`;
  return {
    on: true,
    mark(what) {
      const line = `${prefix} +${performance.now().toFixed(1).padStart(8)} ms  ${what}\n`;
      // Synchronous: a mark just before process.exit must not be lost with an async stream's buffer.
      try {
        if (file) appendFileSync(file, line, { mode: 0o600 });
        else writeSync(2, line);
      } catch {
        // A closed stderr or an unwritable trace file never fails the verb being traced.
      }
    },
  };
}

/** Milliseconds since the process started, to one decimal, for a mark's own durations. */
export function elapsedSince(started: number): string {
  return `${(performance.now() - started).toFixed(1)} ms`;
}
