import {
  apiErrorTexts,
  geminiErrorExit,
  geminiEvents,
  geminiStats,
  geminiStreamStats,
} from "../../core/dialects/gemini.ts";
import { createTurnTally } from "../../core/dialects/turn-tally.ts";
import type { PrintInput } from "../../core/print/input.ts";
import { budgetError, type PrintEnding } from "../../core/print/result.ts";
import type { Renderer } from "./flow.ts";

type Io = { out: (t: string) => void; err: (t: string) => void };
/**
 * gemini -p's dialect (0.61.0, measured: docs/providers.md "gemini -p"):
 * - text: the answer and a newline; an error on stderr;
 * - json: `{session_id, response, stats}` pretty-printed with no newline after it; an error is
 *   `{session_id, error: {type, message, code}}` on **stderr** (as gemini writes it);
 * - stream-json: init, the user message, assistant text as `message` deltas, tool_use and
 *   tool_result, then `result` (`status` success or error, with `stats`).
 * An API error exits 1 in text and with its HTTP status modulo 256 in json and stream-json (gemini's
 * `process.exit(status)`: a 400 exits 144); umbel's own outcomes keep umbel's codes. Every JSON
 * result carries `umbel` too, as the claude dialect's does.
 */
export function geminiRenderer(input: PrintInput, io: Io, now: () => string): Renderer {
  const format = input.outputFormat;
  const tally = createTurnTally();
  const line = (value: unknown) => io.out(`${JSON.stringify(value)}\n`);
  const stream = format === "stream-json";
  let model: string | null = null;
  return {
    init(info) {
      model = info.model;
      if (!stream) return;
      line({ type: "init", timestamp: now(), session_id: info.sessionId, model: info.model });
      line({ type: "message", timestamp: now(), role: "user", content: info.prompt });
    },
    message(message) {
      for (const step of tally.push(message))
        if (stream) for (const event of geminiEvents(step, now())) line(event);
    },
    feedback(text) {
      if (stream) line({ type: "message", timestamp: now(), role: "user", content: text });
    },
    exitCode(ending, outcome, summary) {
      if (ending.kind === "success") return 0;
      if (ending.kind === "api-error")
        return format === "text" ? 1 : geminiErrorExit(summary?.apiError?.status ?? null);
      if (ending.kind === "failure") return outcome.exitCode;
      return 1;
    },
    result(r) {
      const denied = new Set((r.summary?.permissionDenials ?? []).map((d) => String(d.tool_use_id ?? "")));
      const error = errorOf(r.ending);
      if (format === "text") {
        if (r.ending.kind === "success")
          io.out(r.ending.text.endsWith("\n") ? r.ending.text : `${r.ending.text}\n`);
        else io.err(`${error?.kind === "api" ? "" : "umbel: "}${error?.message ?? ""}\n`);
        return;
      }
      if (stream) {
        const stats = geminiStreamStats({
          summary: r.summary,
          durationMs: r.durationMs,
          toolCalls: tally.calls().filter((c) => c.result).length,
          model,
        });
        const failed = error
          ? { error: { type: error.kind === "api" ? "unknown" : error.type, message: error.stream } }
          : {};
        line({
          type: "result",
          timestamp: now(),
          status: error ? "error" : "success",
          ...failed,
          stats,
          umbel: r.umbel,
        });
        return;
      }
      if (error) {
        const code = error.kind === "api" ? r.summary?.apiError?.status : r.exitCode;
        const body = { type: error.type, message: error.json, ...(code ? { code } : {}) };
        io.err(`${JSON.stringify({ session_id: r.sessionId, error: body, umbel: r.umbel }, null, 2)}\n`);
        return;
      }
      const stats = geminiStats({
        summary: r.summary,
        requests: tally.requests(),
        calls: tally.calls(),
        deniedIds: denied,
      });
      const response = r.ending.kind === "success" ? r.ending.text : "";
      io.out(JSON.stringify({ session_id: r.sessionId, response, stats, umbel: r.umbel }, null, 2));
    },
    end: () => {},
  };
}

type ErrorView = { kind: "api" | "umbel"; type: string; message: string; stream: string; json: string };

/** How the turn failed, in gemini's words (an API error) or umbel's (its own outcomes). */
function errorOf(ending: PrintEnding): ErrorView | null {
  if (ending.kind === "success") return null;
  if (ending.kind === "api-error") {
    const texts = apiErrorTexts(ending.text);
    // gemini -p prints an API error's class name, which is "Error" (measured).
    return { kind: "api", type: "Error", message: ending.text, ...texts };
  }
  const message =
    ending.kind === "max-turns"
      ? `Reached maximum number of turns (${ending.maxTurns})`
      : ending.kind === "budget"
        ? budgetError(ending)
        : ending.message;
  const type = `umbel-${ending.kind === "failure" ? ending.reason : ending.kind}`;
  return { kind: "umbel", type, message, stream: message, json: message };
}
