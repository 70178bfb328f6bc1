import { budgetText, maxTurnsText, type PrintEnding } from "../../core/print/result.ts";

export type PrintOutput = {
  /** The system/init message that opens a turn. */
  init(message: Record<string, unknown>): void;
  /** An assistant or tool-result message, as it lands in the transcript. */
  message(message: Record<string, unknown>): void;
  result(result: Record<string, unknown>, ending: PrintEnding): void;
  /** After the last turn (json --verbose prints its array here). */
  end(): void;
};

/**
 * stdout as claude -p writes it:
 * - text: the answer and a newline (with --json-schema, the object's JSON); an API error's text the
 *   same way; max turns as `Error: Reached max turns (N)` and structured output's retries as
 *   `Error: Failed to provide …`, a spent budget as `Error: Exceeded USD budget (N)`, with no
 *   newline; nothing for umbel's own failures (stderr says it);
 * - json: the result object; with --verbose, one array of every message ending with the result;
 * - stream-json: one message per line as it happens (requires --verbose, as in claude).
 */
export function createOutput(
  format: "text" | "json" | "stream-json",
  verbose: boolean,
  out: (text: string) => void,
): PrintOutput {
  const line = (value: unknown) => out(`${JSON.stringify(value)}\n`);
  if (format === "stream-json") return { init: line, message: line, result: (r) => line(r), end: () => {} };
  if (format === "json") {
    const all: unknown[] = [];
    return {
      init: (m) => void (verbose && all.push(m)),
      message: (m) => void (verbose && all.push(m)),
      result: (r) => (verbose ? void all.push(r) : line(r)),
      end: () => {
        if (verbose && all.length > 0) line(all);
      },
    };
  }
  return {
    init: () => {},
    message: () => {},
    result: (_r, ending) => {
      if (ending.kind === "success" || ending.kind === "api-error")
        out(ending.text.endsWith("\n") ? ending.text : `${ending.text}\n`);
      else if (ending.kind === "max-turns") out(maxTurnsText(ending.maxTurns));
      // claude -p prints its structured-output error on stdout, with no newline (as max turns).
      else if (ending.kind === "structured-retries") out(`Error: ${ending.message}`);
      else if (ending.kind === "budget") out(budgetText(ending));
    },
    end: () => {},
  };
}
