import type { ConversationTurn, StreamMessage, TurnTracker } from "./transcript-types.ts";
import { addUsage, emptyUsage } from "./usage.ts";

/**
 * claude -p's stream-json shapes, for providers whose transcripts are not claude's (codex, gemini).
 * Their trackers read their own records and render them through these builders, so every provider
 * prints the same keys in the same order as claude's tracker (claude/stream.ts) does.
 */

/** One content block of an assistant message, in the Anthropic Messages shape. */
export type ContentBlock =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "thinking"; readonly thinking: string; readonly signature: string }
  | { readonly type: "tool_use"; readonly id: string; readonly name: string; readonly input: unknown };

/** Token counts in neutral terms; each provider maps its own record onto them. */
export type TokenCounts = {
  /** Prompt tokens not read from a cache. */
  readonly input: number;
  readonly cacheRead: number;
  readonly cacheCreation: number;
  /** Generated tokens, thinking included (claude's output_tokens counts thinking). */
  readonly output: number;
  readonly thinking: number;
};

/** claude's usage object for one API message (emptyUsage's keys, the counts filled in). */
export function claudeUsage(counts: TokenCounts): Record<string, unknown> {
  return addUsage(emptyUsage(), {
    input_tokens: counts.input,
    cache_creation_input_tokens: counts.cacheCreation,
    cache_read_input_tokens: counts.cacheRead,
    output_tokens: counts.output,
    output_tokens_details: { thinking_tokens: counts.thinking },
  });
}

export type AssistantLine = {
  /** The API message's id (every block of one API response shares it). */
  readonly id: string;
  readonly model: string | null;
  readonly usage: Record<string, unknown> | null;
  readonly block: ContentBlock;
  /** "tool_use" when the response called tools, "end_turn" otherwise; null while unknown. */
  readonly stopReason: string | null;
  readonly sessionId: string | null;
  readonly uuid: string;
  readonly timestamp: string | null;
  readonly requestId?: string | null;
};

/** One `assistant` line: one content block of an API message, as claude -p prints them. */
export function assistantLine(a: AssistantLine): StreamMessage {
  return {
    type: "assistant",
    message: {
      id: a.id,
      type: "message",
      role: "assistant",
      model: a.model,
      usage: a.usage,
      content: [a.block],
      stop_reason: a.stopReason,
      stop_sequence: null,
      context_management: null,
    },
    parent_tool_use_id: null,
    session_id: a.sessionId,
    uuid: a.uuid,
    timestamp: a.timestamp,
    request_id: a.requestId ?? null,
  };
}

/**
 * The `assistant` line claude writes for an API error (model `<synthetic>`, the error as its text),
 * with claude -p's error keys.
 */
export function apiErrorLine(a: {
  readonly text: string;
  readonly status: number | null;
  readonly errorType: string | null;
  readonly sessionId: string | null;
  readonly uuid: string;
  readonly timestamp: string | null;
}): StreamMessage {
  return {
    type: "assistant",
    message: {
      id: a.uuid,
      type: "message",
      role: "assistant",
      model: "<synthetic>",
      usage: emptyUsage(),
      content: [{ type: "text", text: a.text }],
      stop_reason: "stop_sequence",
      stop_sequence: "",
    },
    parent_tool_use_id: null,
    session_id: a.sessionId,
    uuid: a.uuid,
    timestamp: a.timestamp,
    request_id: null,
    error: "unknown",
    is_api_error_message: true,
    api_error_status: a.status,
    api_error_type: a.errorType,
  };
}

export type ToolResult = {
  readonly toolUseId: string;
  /** The tool's output as the model saw it (text, or the provider's structured result). */
  readonly content: unknown;
  readonly isError: boolean;
};

/** One `user` line carrying tool results, as claude -p prints them. */
export function toolResultLine(a: {
  readonly results: readonly ToolResult[];
  readonly sessionId: string | null;
  readonly uuid: string;
  readonly timestamp: string | null;
  /** The provider's own record of the run (claude's toolUseResult), or null. */
  readonly toolUseResult?: unknown;
}): StreamMessage {
  return {
    type: "user",
    message: {
      role: "user",
      content: a.results.map((r) => ({
        tool_use_id: r.toolUseId,
        type: "tool_result",
        content: r.content,
        is_error: r.isError,
      })),
    },
    parent_tool_use_id: null,
    session_id: a.sessionId,
    uuid: a.uuid,
    timestamp: a.timestamp,
    tool_use_result: a.toolUseResult ?? null,
  };
}

/** `2026-…Z` → epoch ms, or null. */
export function timeOfIso(value: unknown): number | null {
  if (typeof value !== "string") return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : t;
}

/** "… status 429 …" / `"code":429` → 429: the HTTP status an error text names, or null. */
export function statusInText(text: string): number | null {
  const m =
    /\bstatus (\d{3})\b/.exec(text) ??
    /"code"\s*:\s*(\d{3})\b/.exec(text) ??
    /\b(\d{3}) [A-Z][a-z]/.exec(text);
  return m ? Number(m[1]) : null;
}

/**
 * Where a human turn opens in a record's lines: the line its tracker starts from, the prompt, and
 * the turn's promptId when its tracker needs one to tell the turn (codex: lines before it may
 * open turns no person started). `sameTurn`: a prompt the CLI folded into the running turn
 * (codex's steer), which opens a ConversationTurn of its own while the same tracker goes on.
 */
export type TurnStart = {
  readonly at: number;
  readonly prompt: string;
  readonly promptId?: string;
  readonly sameTurn?: boolean;
};

/**
 * A whole record as its human turns, each rendered by the provider's own tracker: a fresh
 * `track(promptId)` per turn is fed the lines before the first turn (the session's header: its id,
 * its model) and then only the turn's own lines, up to the next start, so a record is read in one
 * pass rather than once per turn. `starts` in line order.
 */
export function replayTurns(
  lines: readonly string[],
  starts: readonly TurnStart[],
  track: (promptId: string | null) => TurnTracker,
): ConversationTurn[] {
  const prelude = lines.slice(0, starts[0]?.at ?? 0);
  let tracker: TurnTracker | null = null;
  return starts.map((start, i) => {
    const current = tracker !== null && start.sameTurn === true ? tracker : track(start.promptId ?? null);
    if (current !== tracker) for (const line of prelude) current.push(line);
    tracker = current;
    const messages: StreamMessage[] = [];
    for (const line of lines.slice(start.at, starts[i + 1]?.at ?? lines.length))
      messages.push(...current.push(line));
    return { prompt: start.prompt, messages };
  });
}
