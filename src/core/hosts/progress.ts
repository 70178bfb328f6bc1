import { z } from "zod";
import { parseJson } from "../common/json.ts";
import { GuardPhase } from "../guard/record.ts";
import { UsageLimit } from "../limits/limits.ts";

/**
 * A remote wait's progress on the wire (docs/hosts.md#progress-of-a-wait-on-a-host): asked for in the envelope
 * (`progress: true`), the host's umbel prints one `{"progress": {...}}` line per update on its
 * stdout before its result line, and the caller hands each to its own wait's onProgress.
 */

/** One update of a wait as the host's umbel saw it (operations/guard/guard.ts GuardProgress). */
export const WireProgress = z.object({
  elapsedMs: z.number().describe("ms since the remote wait started (the caller counts its own)"),
  turn: z.enum(["none", "running", "input", "stop", "failure"]).describe("The turn's state"),
  limited: UsageLimit.optional().describe("Waiting through a usage limit: the limit and its reset"),
  failingOver: z.boolean().optional().describe("The worker is being moved to another account"),
  attempt: z.number().int().optional().describe("A guarded turn: which attempt"),
  maxAttempts: z.number().int().optional().describe("A guarded turn: how many attempts it has"),
  phase: GuardPhase.optional().describe("A guarded turn: what umbel does now"),
});
export type WireProgress = z.infer<typeof WireProgress>;

const ProgressLine = z.object({ progress: WireProgress }).strict();

/** The stdout line of one update. */
export function renderProgressLine(progress: WireProgress): string {
  return `${JSON.stringify({ progress })}\n`;
}

/** The update a stdout line carries, or null for any other line (the result, an error). */
export function readProgressLine(line: string): WireProgress | null {
  const parsed = ProgressLine.safeParse(parseJson(line));
  return parsed.success ? parsed.data.progress : null;
}

/** Hands each whole line of a stream to `line` as the chunks come; `end` gives the last, unended one. */
export function splitLines(line: (text: string) => void): { push(chunk: string): void; end(): void } {
  let pending = "";
  return {
    push(chunk) {
      pending += chunk;
      for (let at = pending.indexOf("\n"); at >= 0; at = pending.indexOf("\n")) {
        line(pending.slice(0, at));
        pending = pending.slice(at + 1);
      }
    },
    end() {
      if (pending !== "") line(pending);
      pending = "";
    },
  };
}

/**
 * The updates worth a line: a change of state at once, else one every `everyMs` of the wait's
 * elapsed (its machine wakes at every hook event, several a second in a busy turn; the caller's
 * MCP face sends one a second at most anyway).
 */
export function throttleProgress(
  send: (progress: WireProgress) => void,
  everyMs: number,
): (progress: WireProgress) => void {
  let sentAt = Number.NEGATIVE_INFINITY;
  let sent: string | null = null;
  return (progress) => {
    const { elapsedMs, ...state } = progress;
    const key = JSON.stringify(state);
    if (key === sent && elapsedMs - sentAt < everyMs) return;
    sentAt = elapsedMs;
    sent = key;
    send(progress);
  };
}
