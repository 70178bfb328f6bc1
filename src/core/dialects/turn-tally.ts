import { isRecord } from "../common/json.ts";
import { timeOfIso } from "../providers/stream-shape.ts";
import type { StreamMessage } from "../providers/transcript-types.ts";
import { isStructuredTool, resultText } from "./tool-kind.ts";

/** One tool call of the turn, with its result once it landed. */
export type ToolCall = {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
  /** The transcript's time of the call's line (epoch ms), or null. */
  readonly at: number | null;
  result: { readonly text: string; readonly isError: boolean; readonly at: number | null } | null;
};

/**
 * What gemini's stats and codex's items count, gathered from the turn's messages in claude's
 * stream-json shape (every provider's tracker renders its transcript into them): the API requests
 * per model and the tool calls with their results. umbel's own StructuredOutput calls are left out:
 * neither gemini -p nor codex exec has that tool.
 */
export type TurnTally = {
  /** Feeds one message; returns its blocks: each new call, each result (with its call), each text. */
  push(message: StreamMessage): TallyStep[];
  /** Distinct API messages per model (an API error's `<synthetic>` line is not a request). */
  requests(): Record<string, number>;
  calls(): readonly ToolCall[];
};

export type TallyStep =
  | { readonly kind: "text"; readonly text: string; readonly timestamp: string | null }
  | { readonly kind: "thinking"; readonly text: string; readonly timestamp: string | null }
  | { readonly kind: "call"; readonly call: ToolCall; readonly timestamp: string | null }
  | { readonly kind: "result"; readonly call: ToolCall; readonly timestamp: string | null };

export function createTurnTally(): TurnTally {
  const byModel = new Map<string, Set<string>>();
  const calls = new Map<string, ToolCall>();

  function push(message: StreamMessage): TallyStep[] {
    const timestamp = typeof message.timestamp === "string" ? message.timestamp : null;
    const body = isRecord(message.message) ? message.message : {};
    const blocks = Array.isArray(body.content) ? body.content.filter(isRecord) : [];
    if (message.type === "assistant") {
      if (message.is_api_error_message === true) return [];
      const model = typeof body.model === "string" ? body.model : "";
      const ids = byModel.get(model) ?? new Set<string>();
      ids.add(String(body.id ?? message.uuid ?? ids.size));
      byModel.set(model, ids);
      return blocks.flatMap((block) => assistantStep(block, timestamp));
    }
    return blocks.flatMap((block): TallyStep[] => {
      const call = block.type === "tool_result" ? calls.get(String(block.tool_use_id ?? "")) : undefined;
      if (!call || call.result !== null) return [];
      call.result = {
        text: resultText(block.content),
        isError: block.is_error === true,
        at: timeOfIso(timestamp),
      };
      return [{ kind: "result", call, timestamp }];
    });
  }

  function assistantStep(block: Record<string, unknown>, timestamp: string | null): TallyStep[] {
    if (block.type === "text" && typeof block.text === "string" && block.text !== "")
      return [{ kind: "text", text: block.text, timestamp }];
    if (block.type === "thinking" && typeof block.thinking === "string" && block.thinking !== "")
      return [{ kind: "thinking", text: block.thinking, timestamp }];
    if (block.type !== "tool_use") return [];
    const name = String(block.name ?? "");
    const id = String(block.id ?? "");
    if (isStructuredTool(name) || calls.has(id)) return [];
    const call: ToolCall = { id, name, input: block.input ?? {}, at: timeOfIso(timestamp), result: null };
    calls.set(id, call);
    return [{ kind: "call", call, timestamp }];
  }

  return {
    push,
    requests: () =>
      Object.fromEntries(
        [...byModel].filter(([model]) => model !== "").map(([model, ids]) => [model, ids.size]),
      ),
    calls: () => [...calls.values()],
  };
}
