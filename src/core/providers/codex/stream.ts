import { isRecord as isObject, parseJsonObject } from "../../common/json.ts";
import {
  apiErrorLine,
  assistantLine,
  type ContentBlock,
  claudeUsage,
  replayTurns,
  statusInText,
  type TurnStart,
  timeOfIso,
  toolResultLine,
} from "../stream-shape.ts";
import type { ConversationTurn, StreamMessage, TurnSummary, TurnTracker } from "../transcript-types.ts";
import { addUsage, emptyUsage, modelUsageOf } from "../usage.ts";

type Payload = Record<string, unknown>;
type Usage = Record<string, unknown> | null;
type Line = { type: unknown; timestamp: string | null; at: number | null; payload: Payload };
/** One output item of a response, held until the response's token_usage_record names it. */
type Item = { id: string; blocks: ContentBlock[]; timestamp: string | null; at: number | null };
/** One codex response = one claude API message. `from`: when its request could start; `to`: its end. */
type Response = { usage: Usage; model: string | null; stop: string; from: number | null; to: number | null };
/** A response's token_usage_record: its id, claude usage and time. */
type UsageRecord = { id: string | null; usage: Usage; at: number | null };

/**
 * Follows one codex turn through its rollout file (0.171.0) and renders claude -p's stream-json
 * shapes. The turn is promptId (codex's turn_id, on a line as `payload.turn_id` or
 * `payload.internal_chat_message_metadata_passthrough.turn_id`; a line with neither belongs to the
 * turn the last `task_started` opened), or with null the first turn whose `task_started` is fed.
 *
 * codex writes a response's items (`message`, `reasoning`, `function_call`, …) one line each and
 * then its `token_usage_record` (with `response_id`), so items wait for that record and are printed
 * as one API message: one `assistant` line per content block, sharing the record's id and usage.
 * Items still waiting when a tool output or the turn's end arrives are printed without usage (a
 * record that lands after such a flush is credited to it). Tool outputs become `user` lines.
 */
export function trackCodexTurn(promptId: string | null): TurnTracker {
  let turn = promptId;
  let opened: string | null = null;
  let complete = false;
  let sessionId: string | null = null;
  let turnModel: string | null = null;
  let threadModel: string | null = null;
  /** The latest user prompt, tool output or response end: the earliest the next request started. */
  let boundary: number | null = null;
  let ttftMs: number | null = null;
  let apiError: TurnSummary["apiError"] = null;
  let buffer: Item[] = [];
  /** The boundary when the buffer's first item landed (a later `<turn_aborted>` message moves boundary). */
  let bufferFrom: number | null = null;
  const responses: Response[] = [];
  const calls = new Map<string, { name: string; input: unknown }>();
  const answered = new Set<string>();
  const denials: Record<string, unknown>[] = [];

  function push(raw: string): StreamMessage[] {
    const line = parseLine(raw);
    if (!line || complete) return [];
    const p = line.payload;
    noteSession(line.type, p);
    if (line.type === "event_msg" && p.type === "task_started" && typeof p.turn_id === "string") {
      opened = p.turn_id;
      turn ??= p.turn_id;
    }
    if (turn === null || (turnOf(p) ?? opened) !== turn) return [];
    if (line.type === "turn_context") turnModel = str(p.model) ?? turnModel;
    if (line.type === "token_usage_record") return closeResponse(p, line.at);
    if (line.type === "response_item") return onItem(line);
    if (line.type === "event_msg" && (p.type === "task_complete" || p.type === "turn_aborted")) {
      complete = true;
      const out = flush();
      const error = p.type === "task_complete" && isObject(p.error) ? p.error : null;
      if (error) out.push(errorLine(error, line.timestamp));
      else if (p.type === "task_complete") ttftMs = num(p.time_to_first_token_ms);
      return out;
    }
    return [];
  }

  function noteSession(type: unknown, p: Payload): void {
    if (type === "session_meta") {
      sessionId = str(p.session_id) ?? str(p.id) ?? sessionId;
      threadModel = str(p.model) ?? threadModel;
    } else if (type === "token_usage_record") {
      sessionId = str(p.session_id) ?? sessionId;
    } else if (type === "event_msg" && p.type === "thread_settings_applied") {
      sessionId ??= str(p.thread_id);
      threadModel = str(isObject(p.thread_settings) ? p.thread_settings.model : null) ?? threadModel;
    }
  }

  function onItem(line: Line): StreamMessage[] {
    const p = line.payload;
    if (p.type === "message" && p.role === "user") {
      boundary = line.at ?? boundary;
      return [];
    }
    if (p.type === "function_call_output" || p.type === "custom_tool_call_output") {
      const out = flush();
      boundary = line.at ?? boundary;
      return [...out, toolResult(p, line.timestamp)];
    }
    const blocks = blocksOf(p);
    if (blocks.length === 0) return [];
    for (const b of blocks) if (b.type === "tool_use") calls.set(b.id, { name: b.name, input: b.input });
    const id = str(p.id) ?? str(p.call_id) ?? `${turn}:${responses.length}:${buffer.length}`;
    if (buffer.length === 0) bufferFrom = boundary;
    buffer.push({ id, blocks, timestamp: line.timestamp, at: line.at });
    return [];
  }

  function toolResult(p: Payload, timestamp: string | null): StreamMessage {
    const callId = str(p.call_id) ?? "";
    answered.add(callId);
    const content = typeof p.output === "string" ? p.output : JSON.stringify(p.output ?? null);
    const denied = REFUSAL.test(content);
    const tool = calls.get(callId);
    if (denied)
      denials.push({ tool_name: tool?.name ?? null, tool_use_id: callId, tool_input: tool?.input ?? {} });
    const results = [{ toolUseId: callId, content, isError: denied || isErrorOutput(p.output) }];
    const uuid = str(p.id) ?? `${callId}:output`;
    const shaped = toolResultLine({ results, sessionId, uuid, timestamp, toolUseResult: null });
    // claude -p adds how each call was permitted; codex shows only that it ran or its policy refused it.
    const decision = { decision: denied ? "deny" : "accept", source: null, reason_type: null };
    return { ...shaped, tool_result_meta: [{ id: callId, permission_decision: decision }] };
  }

  /** A record with nothing waiting belongs to the response a tool output flushed (or had no items). */
  function closeResponse(p: Payload, at: number | null): StreamMessage[] {
    const usage = usageOf(p.usage);
    if (buffer.length > 0) return flush({ id: str(p.response_id), usage, at });
    const last = responses.at(-1);
    if (last && last.usage === null) {
      last.usage = usage;
      last.to = at ?? last.to;
    } else {
      responses.push({ usage, model: turnModel ?? threadModel, stop: "end_turn", from: boundary, to: at });
    }
    boundary = at ?? boundary;
    return [];
  }

  /** The buffered items as one API message: with its record, or without usage, ending at its last item. */
  function flush(record?: UsageRecord): StreamMessage[] {
    const items = buffer;
    const first = items[0];
    if (!first) return [];
    buffer = [];
    const model = turnModel ?? threadModel;
    const usage = record?.usage ?? null;
    const stop = items.some((i) => i.blocks.some((b) => b.type === "tool_use")) ? "tool_use" : "end_turn";
    const to = record?.at ?? items.at(-1)?.at ?? null;
    responses.push({ usage, model, stop, from: bufferFrom, to });
    boundary = to ?? boundary;
    const shared = { id: record?.id ?? first.id, model, usage, stopReason: stop, sessionId };
    return items.flatMap(({ id, blocks, timestamp }) =>
      blocks.map((block, k) => assistantLine({ ...shared, block, uuid: k ? `${id}:${k}` : id, timestamp })),
    );
  }

  function errorLine(error: Payload, timestamp: string | null): StreamMessage {
    const text = str(error.message) ?? "unknown error";
    const info = error.codex_error_info;
    // codex_error_info: "other", or {"http_connection_failed":{"http_status_code":401}}.
    const inner = isObject(info) ? Object.values(info)[0] : null;
    const status = (isObject(inner) ? num(inner.http_status_code) : null) ?? statusInText(text);
    const type = isObject(info) ? (Object.keys(info)[0] ?? null) : str(info);
    apiError = { status, type };
    return apiErrorLine({ text, status, errorType: type, sessionId, uuid: `${turn}:error`, timestamp });
  }

  function summary(): TurnSummary {
    let usage = emptyUsage();
    const perModel: { model: string; usage: unknown }[] = [];
    let apiMs: number | null = null;
    for (const r of responses) {
      if (r.usage) usage = addUsage(usage, r.usage);
      if (r.usage && r.model) perModel.push({ model: r.model, usage: r.usage });
      if (r.from !== null && r.to !== null) apiMs = (apiMs ?? 0) + Math.max(0, r.to - r.from);
    }
    return {
      assistantMessages: responses.length,
      usage,
      modelUsage: modelUsageOf(perModel),
      stopReason: responses.at(-1)?.stop ?? null,
      durationApiMs: apiError && apiMs === null ? 0 : apiMs,
      ttftMs: apiError ? null : ttftMs,
      timeToRequestMs: null,
      apiError,
      permissionDenials: denials,
      complete,
      toolsPending: [...calls.keys()].filter((id) => !answered.has(id)).length,
      sessionId,
    };
  }

  return { push, summary };
}

/**
 * The whole rollout, one entry per prompt a person typed: a user `message` item of kind
 * `user.text` (codex's own user items are `<environment_context>`, `<turn_aborted>`, … of other
 * kinds). Each turn is tracked from its `task_started`; a prompt sent while the turn ran (codex
 * folds it into the same turn) opens an entry of its own on the same tracker. A turn no person
 * started (no `user.text` item) is not replayed.
 */
export function readCodexConversation(lines: readonly string[]): ConversationTurn[] {
  const opened = new Map<string, number>();
  const prompted = new Set<string>();
  let current: string | null = null;
  const starts = lines.flatMap((raw, at): TurnStart[] => {
    const line = parseLine(raw);
    const p = line?.payload;
    if (line?.type === "event_msg" && p?.type === "task_started" && typeof p.turn_id === "string") {
      opened.set(p.turn_id, at);
      current = p.turn_id;
    }
    if (line?.type !== "response_item" || !p || !isTypedPrompt(p)) return [];
    const turn = turnOf(p) ?? current;
    const from = turn === null ? undefined : opened.get(turn);
    if (turn === null || from === undefined) return [];
    const prompt = textsOf(p.content, "input_text").join("\n");
    if (prompted.has(turn)) return [{ at, prompt, sameTurn: true }];
    prompted.add(turn);
    return [{ at: from, prompt, promptId: turn }];
  });
  return replayTurns(lines, starts, trackCodexTurn);
}

/** A user message item a person typed (0.171.0 marks each item's kind; older rollouts do not). */
function isTypedPrompt(p: Payload): boolean {
  if (p.type !== "message" || p.role !== "user") return false;
  const meta = p.internal_chat_message_metadata_passthrough;
  const kinds = isObject(meta) && Array.isArray(meta.content_item_kinds) ? meta.content_item_kinds : null;
  if (kinds !== null) return kinds.includes("user.text");
  return !/^<[a-z_]+>/.test(textsOf(p.content, "input_text")[0] ?? "<none>");
}

/** The content blocks of one response item; `web_search_call` is a server tool with no output line. */
function blocksOf(p: Payload): ContentBlock[] {
  const id = str(p.call_id) ?? str(p.id) ?? "";
  switch (p.type) {
    case "message":
      return p.role === "assistant"
        ? textsOf(p.content, "output_text").map((text) => ({ type: "text", text }))
        : [];
    case "reasoning": {
      // With `summary: "none"` only encrypted reasoning is kept: an empty block still says it thought.
      const summary = textsOf(p.summary, "summary_text");
      const thinking = (summary.length > 0 ? summary : textsOf(p.content, "reasoning_text")).join("\n\n");
      return [{ type: "thinking", thinking, signature: "" }];
    }
    case "function_call":
      return [{ type: "tool_use", id, name: str(p.name) ?? "", input: argumentsOf(p.arguments) }];
    case "custom_tool_call":
      return [{ type: "tool_use", id, name: str(p.name) ?? "", input: { input: p.input } }];
    case "local_shell_call":
      return [{ type: "tool_use", id, name: "local_shell", input: p.action ?? {} }];
    default:
      return [];
  }
}

function argumentsOf(raw: unknown): unknown {
  if (typeof raw !== "string") return raw ?? {};
  try {
    return JSON.parse(raw);
  } catch {
    return { arguments: raw };
  }
}

/**
 * codex's answer to a call its approval policy forbids (measured on 0.171.0: an escalation under
 * `-a never` or bypass mode; a patch under `-s read-only -a never`, codex exec's default).
 */
const REFUSAL =
  /^(approval policy is \S+; reject command|patch rejected: .*rejected by user approval settings)/;

/**
 * A failed tool call: codex's structured output with `success: false`, or an exec_command header
 * (the text before `Output:`) saying `Process exited with code N`, N ≠ 0 — claude marks a Bash
 * command that exits non-zero `is_error` too. A refused escalation (REFUSAL) is one and a denial.
 */
function isErrorOutput(output: unknown): boolean {
  if (isObject(output)) return output.success === false;
  if (typeof output !== "string") return false;
  const header = output.split("\nOutput:\n")[0] ?? "";
  const m = /^Process exited with code (-?\d+)$/m.exec(header);
  return m !== null && Number(m[1]) !== 0;
}

/** A token_usage_record's `usage` in claude's terms (claude's input_tokens excludes cache reads). */
function usageOf(u: unknown): Record<string, unknown> | null {
  if (!isObject(u)) return null;
  const cached = num(u.cached_input_tokens) ?? 0;
  return claudeUsage({
    input: Math.max(0, (num(u.input_tokens) ?? 0) - cached),
    cacheRead: cached,
    cacheCreation: num(u.cache_write_input_tokens) ?? 0,
    output: num(u.output_tokens) ?? 0,
    thinking: num(u.reasoning_output_tokens) ?? 0,
  });
}

function turnOf(p: Payload): string | null {
  const meta = p.internal_chat_message_metadata_passthrough;
  return str(p.turn_id) ?? (isObject(meta) ? str(meta.turn_id) : null);
}

function textsOf(parts: unknown, type: string): string[] {
  if (!Array.isArray(parts)) return [];
  return parts.flatMap((part) => (isObject(part) && part.type === type ? [String(part.text ?? "")] : []));
}

/** A rollout line, or null (a line still being appended, or the tail of one cut by the read offset). */
function parseLine(raw: string): Line | null {
  const value = parseJsonObject(raw);
  if (value === null || !isObject(value.payload)) return null;
  const timestamp = str(value.timestamp);
  return { type: value.type, timestamp, at: timeOfIso(timestamp), payload: value.payload };
}
const str = (v: unknown): string | null => (typeof v === "string" ? v : null);
const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
