// Reads an OpenAI Chat Completions request as opencode 1.18.33 sends it (@ai-sdk/openai-compatible):
// which kind of request it is, and what the human typed.
import { isRecord } from "./anthropic-request.ts";
import type { MainTurn, ToolResultSeen } from "./types.ts";

export interface ChatBody {
  model: string;
  stream: boolean;
  /** `stream_options.include_usage`: the last chunk carries `usage`. */
  includeUsage: boolean;
  messages: ChatMessage[];
  toolNames: string[];
  /** The system messages joined (opencode sends its prompt as one or more system messages). */
  system: string;
}

/** One message of `messages`; only the fields the stub reads. */
export interface ChatMessage {
  role: string;
  /** The text of `content` (a string, or the joined text parts). */
  text: string;
  /** Each text part on its own (a string content is one part). */
  parts: string[];
  toolCallId: string;
  toolCalls: { id: string; name: string; arguments: string }[];
}

export type ClassifiedChat = { kind: "title"; prompt: string } | { kind: "main"; turn: MainTurn };

/**
 * opencode asks its `small_model` for a session title alongside the first turn: no tools, a system
 * prompt that starts with this, and the user text after `Generate a title for this conversation:\n`.
 */
const TITLE_SYSTEM = /^You are a title generator/;
const TITLE_PROMPT = /^Generate a title for this conversation:\n([\s\S]*)$/;

export function readChatBody(body: unknown): ChatBody {
  const raw = isRecord(body) ? body : {};
  const messages = Array.isArray(raw.messages) ? raw.messages.filter(isRecord).map(toMessage) : [];
  const options = isRecord(raw.stream_options) ? raw.stream_options : {};
  return {
    model: typeof raw.model === "string" ? raw.model : "stub-model",
    stream: raw.stream === true,
    includeUsage: options.include_usage === true,
    messages,
    toolNames: Array.isArray(raw.tools)
      ? raw.tools
          .filter(isRecord)
          .map((tool) => (isRecord(tool.function) ? String(tool.function.name ?? "") : ""))
      : [],
    system: messages
      .filter((message) => message.role === "system")
      .map((message) => message.text)
      .join("\n"),
  };
}

export function classifyChat(body: ChatBody): ClassifiedChat {
  if (body.toolNames.length === 0 && TITLE_SYSTEM.test(body.system)) {
    const lastUser = body.messages.findLast((message) => message.role === "user");
    const text = lastUser?.parts.map((part) => TITLE_PROMPT.exec(part)?.[1]).find((p) => p !== undefined);
    return { kind: "title", prompt: text ?? lastUser?.text ?? "" };
  }
  return { kind: "main", turn: readChatTurn(body.messages) };
}

/**
 * The turn a main request answers: `tool` messages after the last assistant message bring back tool
 * results; otherwise the prompt is the last user message's text parts joined.
 */
export function readChatTurn(messages: readonly ChatMessage[]): MainTurn {
  const lastAssistant = messages.findLastIndex((message) => message.role === "assistant");
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  const toolResults: ToolResultSeen[] =
    lastAssistant > lastUser
      ? messages
          .slice(lastAssistant + 1)
          .filter((message) => message.role === "tool")
          .map((message) => ({
            toolUseId: message.toolCallId,
            isError: /^(Error|error):/.test(message.text),
            text: message.text,
          }))
      : [];
  const prompt = lastUser >= 0 && lastUser > lastAssistant ? (messages[lastUser]?.parts.join("") ?? "") : "";
  const trigger = toolResults.length > 0 ? "tool_result" : prompt !== "" ? "prompt" : "notice";
  return {
    trigger,
    prompt: trigger === "prompt" ? prompt : "",
    injected: "",
    toolResults,
    messageCount: messages.length,
  };
}

function toMessage(raw: Record<string, unknown>): ChatMessage {
  const content = raw.content;
  const parts =
    typeof content === "string"
      ? [content]
      : Array.isArray(content)
        ? content
            .filter(isRecord)
            .filter((part) => typeof part.text === "string")
            .map((part) => String(part.text))
        : [];
  const calls = Array.isArray(raw.tool_calls) ? raw.tool_calls.filter(isRecord) : [];
  return {
    role: String(raw.role ?? ""),
    text: parts.join(""),
    parts,
    toolCallId: String(raw.tool_call_id ?? ""),
    toolCalls: calls.map((call) => {
      const fn = isRecord(call.function) ? call.function : {};
      return {
        id: String(call.id ?? ""),
        name: String(fn.name ?? ""),
        arguments: String(fn.arguments ?? ""),
      };
    }),
  };
}
