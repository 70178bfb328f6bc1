import type { PrintInput } from "../../core/print/input.ts";
import { buildInit, buildResult, endingExitCode } from "../../core/print/result.ts";
import type { Renderer } from "./flow.ts";
import { createOutput } from "./output.ts";

/** claude -p's dialect: its result object, its stream-json lines and its exit codes (output.ts). */
export function claudeRenderer(
  input: PrintInput,
  io: { out: (t: string) => void; err: (t: string) => void },
  now: () => number,
): Renderer {
  const output = createOutput(input.outputFormat, input.verbose, io.out);
  return {
    init: (info) =>
      output.init(
        buildInit({
          cwd: info.cwd,
          sessionId: info.sessionId,
          model: info.model,
          permissionMode: info.permissionMode,
          uuid: crypto.randomUUID(),
        }),
      ),
    message: (message) => output.message(message),
    // A guardrail's next prompt is a user message (claude -p prints its enforce message so).
    feedback: (text, sessionId) => output.message(feedbackMessage(text, sessionId, now())),
    exitCode: endingExitCode,
    result(r) {
      const result = buildResult({
        ending: r.ending,
        summary: r.summary,
        sessionId: r.sessionId,
        durationMs: r.durationMs,
        uuid: crypto.randomUUID(),
        resultIndex: r.resultIndex,
        stream: input.outputFormat === "stream-json",
        runModelUsage: r.runModelUsage,
        costUsd: r.costUsd,
        umbel: r.umbel,
      });
      output.result(result, r.ending);
      if (r.ending.kind === "failure") io.err(`umbel: ${r.ending.message}\n`);
    },
    end: () => output.end(),
  };
}

/** claude -p's line for a user message umbel sends on its own (its enforce message is `isSynthetic`). */
function feedbackMessage(text: string, sessionId: string | null, now: number): Record<string, unknown> {
  return {
    type: "user",
    message: { role: "user", content: [{ type: "text", text }] },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: crypto.randomUUID(),
    timestamp: new Date(now).toISOString(),
    isSynthetic: true,
  };
}
