import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { renderErrorJson } from "../../core/errors.ts";

/** A tool's answer: the readable text, and the data as structuredContent (checked against outputSchema). */
export function toolResult(data: Record<string, unknown>, text: string): CallToolResult {
  return { content: [{ type: "text", text }], structuredContent: data };
}

/**
 * An umbel error as an `isError` result: a readable line, then the error JSON (code, class,
 * message, exitCode, data). There is no structuredContent: the client checks it against the
 * tool's output schema even on errors.
 */
export function errorResult(error: unknown): CallToolResult {
  const json = renderErrorJson(error);
  const e = json.error;
  return {
    isError: true,
    content: [
      { type: "text", text: `${e.class} (${e.code}, exit ${e.exitCode}): ${e.message}` },
      { type: "text", text: JSON.stringify(json) },
    ],
  };
}
