import { isAbsolute, join } from "node:path";
import { isRecord, parseJsonObject } from "../../common/json.ts";
import { replayTurns, type TurnStart, timeOfIso } from "../stream-shape.ts";
import type { ConversationTurn, StreamMessage, TurnSummary, TurnTracker } from "../transcript-types.ts";
import { addUsage, emptyUsage, modelUsageOf } from "../usage.ts";

type Entry = Record<string, unknown> & {
  type?: unknown;
  message?: Record<string, unknown> & { id?: unknown; content?: unknown; usage?: unknown; model?: unknown };
};

/** claude -p's stream-json assistant `message` keys, in its order (the transcript adds stop_details). */
const MESSAGE_KEYS = ["id", "type", "role", "model", "usage", "content", "stop_reason", "stop_sequence"];

/**
 * Follows one claude turn through its transcript (2.1.332) and renders claude -p's stream-json
 * shapes. The turn starts at the human prompt line with our promptId and ends at the next human
 * prompt. Per line: an assistant line (one content block of an API message) becomes one `assistant`
 * message, as claude -p prints them; a user line carrying tool_result blocks becomes one `user`
 * message; sidechain (subagent) lines, meta lines, interrupts and bookkeeping are not printed.
 * `api-request` lines may precede the prompt line (claude writes the request before the user entry
 * lands), so their timestamps are kept from the first line fed.
 */
export function trackClaudeTurn(promptId: string | null): TurnTracker {
  let started = false;
  let ended = false;
  let complete = false;
  let sessionId: string | null = null;
  let promptAt: number | null = null;
  const requests = new Map<string, number>();
  const messages = new Map<string, MessageSeen>();
  const tools = new Map<string, { name: unknown; input: unknown; cwd: unknown }>();
  const answered = new Set<string>();
  const denials: Record<string, unknown>[] = [];
  let apiError: TurnSummary["apiError"] = null;

  function push(line: string): StreamMessage[] {
    const e = parseLine(line);
    if (!e || ended) return [];
    if (e.type === "api-request" && typeof e.id === "string") {
      const at = timeOf(e);
      if (at !== null) requests.set(e.id, at);
      return [];
    }
    if (e.type === "user" && isHuman(e)) {
      if (started) {
        ended = true;
        return [];
      }
      if (promptId !== null && e.promptId !== promptId) return [];
      started = true;
      promptAt = timeOf(e);
      if (typeof e.sessionId === "string") sessionId = e.sessionId;
      return [];
    }
    if (!started || e.isSidechain === true) return [];
    if (e.type === "system" && e.subtype === "turn_duration") complete = true;
    if (e.type === "assistant") {
      const line = assistantLine(e);
      // claude -p prints a rate_limit_event (the response's rate-limit headers) before a limit's line.
      const info = apiError?.rateLimitInfo;
      if (e.isApiErrorMessage === true && info) return [rateLimitEvent(info, e), line];
      return [line];
    }
    if (e.type === "user" && hasToolResult(e)) {
      const line = userLine(e);
      return [...deniedLines(e, line), line];
    }
    return [];
  }

  /**
   * claude -p prints a `system` / `permission_denied` line before the result of each call it refused
   * (2.1.332: tool, id, the message the model got; `decision_reason_type: "mode"` in dontAsk).
   */
  function deniedLines(e: Entry, line: StreamMessage): StreamMessage[] {
    const decision = e.permissionDecision as Record<string, unknown> | undefined;
    return blocksOf(e.message?.content).flatMap((block) => {
      const id = block.tool_use_id;
      if (block.type !== "tool_result" || typeof id !== "string" || !isDenial(block, e, decision)) return [];
      return [
        {
          type: "system",
          subtype: "permission_denied",
          tool_name: tools.get(id)?.name ?? null,
          tool_use_id: id,
          ...(decision?.reasonType === "mode" ? { decision_reason_type: "mode" } : {}),
          message: textOf(block.content),
          uuid: `${String(e.uuid ?? "denied")}-denied-${id}`,
          session_id: line.session_id ?? null,
        },
      ];
    });
  }

  function assistantLine(e: Entry): StreamMessage {
    const message = e.message ?? {};
    const id = typeof message.id === "string" ? message.id : `line:${String(e.uuid ?? "")}`;
    const seen = messages.get(id) ?? { at: [], usage: null, model: null, stop: null, requestRef: null };
    const at = timeOf(e);
    if (at !== null) seen.at.push(at);
    if (e.isApiErrorMessage !== true) {
      seen.usage = message.usage ?? seen.usage;
      seen.model = typeof message.model === "string" ? message.model : seen.model;
    }
    if (typeof message.stop_reason === "string") seen.stop = message.stop_reason;
    if (typeof e.requestRef === "string") seen.requestRef = e.requestRef;
    messages.set(id, seen);
    for (const block of blocksOf(message.content)) {
      if (block.type === "tool_use" && typeof block.id === "string")
        tools.set(block.id, { name: block.name, input: block.input, cwd: e.cwd });
    }
    const base = streamBase(e);
    if (e.isApiErrorMessage === true) {
      const params = isRecord(e.apiErrorParams) ? e.apiErrorParams : null;
      apiError = {
        status: typeof e.apiErrorStatus === "number" ? e.apiErrorStatus : statusFromText(message.content),
        type: typeof e.apiErrorType === "string" ? e.apiErrorType : null,
        error: typeof e.apiError === "string" ? e.apiError : null,
        rateLimitInfo: params && isRecord(params.rate_limit_info) ? params.rate_limit_info : null,
      };
      return {
        type: "assistant",
        message,
        ...base,
        request_id: e.requestId ?? null,
        error: e.error ?? null,
        is_api_error_message: true,
        api_error_status: apiError.status,
        // A usage limit, as claude -p names it (2.1.332: only then are these keys there).
        ...(apiError.error ? { api_error: apiError.error, api_error_params: params } : {}),
        api_error_type: apiError.type,
      };
    }
    const shaped: Record<string, unknown> = {};
    for (const key of MESSAGE_KEYS) shaped[key] = message[key] ?? null;
    shaped.context_management = message.context_management ?? null;
    return { type: "assistant", message: shaped, ...base, request_id: e.requestId ?? null };
  }

  function userLine(e: Entry): StreamMessage {
    const content = e.message?.content;
    const meta: Record<string, unknown>[] = [];
    const decision = e.permissionDecision as Record<string, unknown> | undefined;
    for (const block of blocksOf(content)) {
      if (block.type !== "tool_result") continue;
      const id = block.tool_use_id;
      if (typeof id === "string") answered.add(id);
      if (decision && typeof decision === "object") {
        meta.push({
          id,
          permission_decision: {
            decision: decision.decision,
            source: decision.source,
            reason_type: decision.reasonType,
          },
        });
      }
      if (isDenial(block, e, decision)) {
        const tool = typeof id === "string" ? tools.get(id) : undefined;
        denials.push({
          tool_name: tool?.name ?? null,
          tool_use_id: id,
          tool_input: absoluteFilePath(tool?.input ?? {}, tool?.cwd),
        });
      }
    }
    return {
      type: "user",
      message: { role: "user", content },
      ...streamBase(e),
      tool_use_result: e.toolUseResult ?? null,
      ...(meta.length > 0 ? { tool_result_meta: meta } : {}),
    };
  }

  function streamBase(e: Entry): Record<string, unknown> {
    if (typeof e.sessionId === "string") sessionId = e.sessionId;
    return {
      parent_tool_use_id: null,
      session_id: sessionId,
      uuid: e.uuid ?? null,
      timestamp: e.timestamp ?? null,
    };
  }

  function summary(): TurnSummary {
    let usage = emptyUsage();
    const perModel: { model: string; usage: unknown }[] = [];
    let stopReason: string | null = null;
    let apiMs: number | null = null;
    let firstAt: number | null = null;
    let firstRequestAt: number | null = null;
    for (const seen of messages.values()) {
      if (seen.usage) {
        usage = addUsage(usage, seen.usage);
        if (seen.model && seen.model !== "<synthetic>")
          perModel.push({ model: seen.model, usage: seen.usage });
      }
      stopReason = seen.stop ?? stopReason;
      const first = seen.at[0] ?? null;
      if (first !== null && (firstAt === null || first < firstAt)) firstAt = first;
      const requested = seen.requestRef ? requests.get(seen.requestRef) : undefined;
      const last = seen.at.at(-1);
      if (requested !== undefined && last !== undefined) {
        apiMs = (apiMs ?? 0) + Math.max(0, last - requested);
        if (firstRequestAt === null || requested < firstRequestAt) firstRequestAt = requested;
      }
    }
    const since = (t: number | null) => (t === null || promptAt === null ? null : Math.max(0, t - promptAt));
    return {
      assistantMessages: messages.size,
      usage,
      modelUsage: modelUsageOf(perModel),
      stopReason,
      durationApiMs: apiError && apiMs === null ? 0 : apiMs,
      ttftMs: apiError ? null : since(firstAt),
      timeToRequestMs: apiError ? null : since(firstRequestAt),
      apiError,
      permissionDenials: denials,
      complete,
      timingsPending: [...messages.values()].filter(
        (m) => m.requestRef !== null && !requests.has(m.requestRef),
      ).length,
      toolsPending: [...tools.keys()].filter((id) => !answered.has(id)).length,
      sessionId,
    };
  }

  return { push, summary };
}

/**
 * The whole conversation, one entry per human prompt (origin.kind "human": not the meta lines of a
 * subagent's report, a task notification or a usage limit's auto-continuation, whose replies belong
 * to the human turn they follow, as in trackClaudeTurn). The prompt is the line's content as typed:
 * the string, or its text blocks joined (a pasted image is not text).
 */
export function readClaudeConversation(lines: readonly string[]): ConversationTurn[] {
  const starts = lines.flatMap((line, at): TurnStart[] => {
    const e = parseLine(line);
    if (e?.type !== "user" || !isHuman(e)) return [];
    return [{ at, prompt: textOf(e.message?.content) }];
  });
  return replayTurns(lines, starts, () => trackClaudeTurn(null));
}

type MessageSeen = {
  at: number[];
  usage: unknown;
  model: string | null;
  stop: string | null;
  requestRef: string | null;
};

/** claude -p's `rate_limit_event` for a limit, from the transcript's `rate_limit_info` (no windows there). */
function rateLimitEvent(info: Readonly<Record<string, unknown>>, e: Entry): StreamMessage {
  return {
    type: "rate_limit_event",
    rate_limit_info: info,
    uuid: `${String(e.uuid ?? "limit")}-rate-limit`,
    session_id: typeof e.sessionId === "string" ? e.sessionId : null,
  };
}

function parseLine(line: string): Entry | null {
  return parseJsonObject(line) as Entry | null;
}

function isHuman(e: Entry): boolean {
  const origin = e.origin as { kind?: unknown } | undefined;
  if (origin && typeof origin === "object") return origin.kind === "human";
  if (e.promptSource !== undefined) return e.promptSource === "typed";
  return e.isMeta !== true && typeof e.message?.content === "string";
}

function blocksOf(content: unknown): Record<string, unknown>[] {
  return Array.isArray(content)
    ? content.filter((b): b is Record<string, unknown> => b !== null && typeof b === "object")
    : [];
}

/**
 * claude -p reports a refused file tool's input with its path made absolute (2.1.332: Write
 * `parity.txt` → `<cwd>/parity.txt`); the transcript keeps the model's own, made absolute here
 * with the cwd of the call's line.
 */
function absoluteFilePath(input: unknown, cwd: unknown): unknown {
  if (!isRecord(input) || typeof cwd !== "string" || !isAbsolute(cwd)) return input;
  const out: Record<string, unknown> = { ...input };
  for (const key of ["file_path", "notebook_path"]) {
    const path = out[key];
    if (typeof path === "string" && path !== "" && !isAbsolute(path)) out[key] = join(cwd, path);
  }
  return out;
}

/** A tool_result's text: the string, or its text blocks joined. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  return blocksOf(content)
    .flatMap((b) => (b.type === "text" && typeof b.text === "string" ? [b.text] : []))
    .join("\n");
}

function hasToolResult(e: Entry): boolean {
  return blocksOf(e.message?.content).some((b) => b.type === "tool_result");
}

/** A rejected or denied tool call (manual prompt answered No, a deny hook, dontAsk mode). */
function isDenial(
  block: Record<string, unknown>,
  e: Entry,
  decision: Record<string, unknown> | undefined,
): boolean {
  if (block.is_error !== true) return false;
  const verdict = decision?.decision;
  if (verdict === "reject" || verdict === "deny") return true;
  return typeof e.toolUseResult === "string" && /rejected|denied/i.test(e.toolUseResult);
}

function timeOf(e: Entry): number | null {
  return timeOfIso(e.timestamp);
}

/** "API Error: 500 …" → 500 (an error line without apiErrorStatus). */
function statusFromText(content: unknown): number | null {
  const text = blocksOf(content).find((b) => b.type === "text")?.text;
  const m = typeof text === "string" ? /API Error: (\d{3})\b/.exec(text) : null;
  return m ? Number(m[1]) : null;
}
