import { isAbsolute, join } from "node:path";
import type { TurnSummary } from "../providers/transcript-types.ts";
import { commandResult, type ToolKind, toolKind } from "./tool-kind.ts";
import type { TallyStep, ToolCall } from "./turn-tally.ts";

/**
 * codex exec --json's items (0.171.0, measured: docs/providers.md "codex exec"), from umbel's turn:
 * text → agent_message, thinking → reasoning, a shell tool → command_execution, a file-writing tool
 * → file_change, an MCP tool → mcp_tool_call, a web search → web_search; a tool codex has no item
 * for (claude's Read, gemini's read_file) is an mcp_tool_call of the server named by the provider.
 * A call prints item.started, its result item.completed, as codex does.
 */

type Json = Record<string, unknown>;

export type CodexItems = {
  push(step: TallyStep): Json[];
  /** The final agent_message of a --output-schema run: the object's JSON. */
  finalMessage(text: string): Json;
};

export function createCodexItems(options: {
  /** The provider's id: the `server` of a tool codex has no item type for. */
  provider: string;
  /** --output-schema: the answer is the object's JSON, printed once at the end (not each text). */
  structured: boolean;
  /** The worker's folder once known: codex prints a file change's path absolute. */
  cwd: () => string | null;
}): CodexItems {
  let next = 0;
  const ids = new Map<string, string>();
  const itemId = () => `item_${next++}`;

  function push(step: TallyStep): Json[] {
    switch (step.kind) {
      case "text":
        return options.structured
          ? []
          : [completed({ id: itemId(), type: "agent_message", text: step.text })];
      case "thinking":
        return [completed({ id: itemId(), type: "reasoning", text: step.text })];
      case "call": {
        const kind = toolKind(step.call.name, step.call.input);
        if (kind.kind === "web" || kind.kind === "structured") return [];
        const id = itemId();
        ids.set(step.call.id, id);
        return [{ type: "item.started", item: itemOf(id, step.call, kind) }];
      }
      case "result": {
        const kind = toolKind(step.call.name, step.call.input);
        if (kind.kind === "structured") return [];
        const id = ids.get(step.call.id) ?? itemId();
        return [completed(itemOf(id, step.call, kind))];
      }
    }
  }

  function itemOf(id: string, call: ToolCall, kind: ToolKind): Json {
    const r = call.result;
    switch (kind.kind) {
      case "command": {
        if (!r)
          return {
            id,
            type: "command_execution",
            command: kind.command,
            aggregated_output: "",
            exit_code: null,
            status: "in_progress",
          };
        const { output, exitCode } = commandResult(r.text, r.isError);
        const status = exitCode === 0 && !r.isError ? "completed" : "failed";
        return {
          id,
          type: "command_execution",
          command: kind.command,
          aggregated_output: output,
          exit_code: exitCode,
          status,
        };
      }
      case "file": {
        const cwd = options.cwd();
        const changes = kind.changes.map((c) =>
          cwd === null || isAbsolute(c.path) ? c : { ...c, path: join(cwd, c.path) },
        );
        return {
          id,
          type: "file_change",
          changes,
          status: !r ? "in_progress" : r.isError ? "failed" : "completed",
        };
      }
      case "web":
        return { id, type: "web_search", query: kind.query, action: { type: "search", query: kind.query } };
      default: {
        const [server, tool] = kind.kind === "mcp" ? [kind.server, kind.tool] : [options.provider, call.name];
        const done = r === null ? null : r.isError ? "failed" : "completed";
        return {
          id,
          type: "mcp_tool_call",
          server,
          tool,
          arguments: call.input,
          result:
            r && !r.isError ? { content: [{ type: "text", text: r.text }], structured_content: null } : null,
          error: r?.isError ? { message: r.text } : null,
          status: done ?? "in_progress",
        };
      }
    }
  }

  return {
    push,
    finalMessage: (text) => completed({ id: itemId(), type: "agent_message", text }),
  };
}

function completed(item: Json): Json {
  return { type: "item.completed", item };
}

/**
 * turn.completed's usage from the claude-shaped summary: codex's input_tokens include the cached part
 * (claude's do not) and its output_tokens include reasoning (as claude's do).
 */
export function codexUsage(summary: TurnSummary | null): Json {
  const u = summary?.usage ?? {};
  const n = (key: string) => (typeof u[key] === "number" ? (u[key] as number) : 0);
  const details = u.output_tokens_details as Record<string, unknown> | undefined;
  const thinking = typeof details?.thinking_tokens === "number" ? details.thinking_tokens : 0;
  return {
    input_tokens: n("input_tokens") + n("cache_read_input_tokens"),
    cached_input_tokens: n("cache_read_input_tokens"),
    cache_write_input_tokens: n("cache_creation_input_tokens"),
    output_tokens: n("output_tokens"),
    reasoning_output_tokens: thinking,
  };
}
