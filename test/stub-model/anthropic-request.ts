// Reads a Messages API request as Claude Code sends it: which kind of request it is, and what
// the human typed (with the blocks Claude Code injects stripped).
import type { MainTurn, ToolResultSeen } from "./types.ts";

export interface MessagesBody {
  model: string;
  stream: boolean;
  system: string;
  messages: Message[];
  toolNames: string[];
  /** The JSON schema of a structured-output request (`output_config.format`), if any. */
  schema: Record<string, unknown> | undefined;
  stopSequences: string[];
}

export interface Message {
  role: string;
  content: unknown;
}

export type Classified =
  | { kind: "classifier" }
  | { kind: "title"; prompt: string }
  | { kind: "other" }
  | { kind: "subagent"; prompt: string; turn: MainTurn; canHandBack: boolean }
  | { kind: "main"; turn: MainTurn };

const CLASSIFIER_MARK = "You are a security monitor for autonomous AI coding agents";
/** In the billing line of a subagent's system prompt; its requests also carry x-claude-code-agent-id. */
const SUBAGENT_MARK = "cc_is_subagent=true";
/** Only the interactive TUI gives subagents this tool; under `-p` their final text is the report. */
const HANDBACK_TOOL = "SubagentHandback";

export function readMessagesBody(body: unknown): MessagesBody {
  const raw = isRecord(body) ? body : {};
  const format = isRecord(raw.output_config) ? raw.output_config.format : raw.output_format;
  const schema =
    isRecord(format) && format.type === "json_schema" && isRecord(format.schema) ? format.schema : undefined;
  return {
    model: typeof raw.model === "string" ? raw.model : "claude-stub",
    stream: raw.stream === true,
    system: textOf(raw.system),
    messages: Array.isArray(raw.messages) ? raw.messages.filter(isRecord).map(toMessage) : [],
    toolNames: Array.isArray(raw.tools)
      ? raw.tools.filter(isRecord).map((tool) => String(tool.name ?? ""))
      : [],
    schema,
    stopSequences: Array.isArray(raw.stop_sequences) ? raw.stop_sequences.map(String) : [],
  };
}

export function classifyMessages(body: MessagesBody, headers: Headers): Classified {
  if (body.system.includes(CLASSIFIER_MARK)) return { kind: "classifier" };
  const turn = readTurn(body.messages);
  if (body.schema !== undefined) {
    return isRecord(body.schema.properties) && "title" in body.schema.properties
      ? { kind: "title", prompt: turn.prompt }
      : { kind: "other" };
  }
  if (headers.has("x-claude-code-agent-id") || body.system.includes(SUBAGENT_MARK)) {
    const first = body.messages.find((message) => message.role === "user");
    const prompt = first ? splitUserContent(first.content).human : "";
    return { kind: "subagent", prompt, turn, canHandBack: body.toolNames.includes(HANDBACK_TOOL) };
  }
  return { kind: "main", turn };
}

/** The last user message (Claude Code also sends `system` role messages after it). */
export function readTurn(messages: readonly Message[]): MainTurn {
  const last = messages.findLast((message) => message.role === "user");
  const { human, injected } = splitUserContent(last?.content);
  const toolResults = last ? toolResultsOf(last.content) : [];
  const trigger =
    human !== "" ? "prompt" : toolResults.length > 0 ? "tool_result" : injected !== "" ? "notice" : "prompt";
  return { trigger, prompt: human, injected, toolResults, messageCount: messages.length };
}

/**
 * Splits the text blocks of a user message into what the human typed and what Claude Code
 * injected, each joined without a separator. Injected blocks are those made only of
 * `<system-reminder>…</system-reminder>` elements (the git-attribution note before the first
 * prompt, task notifications, tool summaries), interrupt markers such as
 * `[Request interrupted by user]`, and a subagent's hand-back ("Another Claude session sent a
 * message: <agent-message …>"). A typed prompt is always a block of its own (or the whole string
 * content), so it is kept byte for byte, even when it contains a system-reminder tag.
 */
export function splitUserContent(content: unknown): { human: string; injected: string } {
  const texts =
    typeof content === "string"
      ? [content]
      : Array.isArray(content)
        ? content
            .filter(isRecord)
            .filter((block) => block.type === "text" && typeof block.text === "string")
            .map((block) => String(block.text))
        : [];
  const human = texts.filter((text) => !isInjected(text));
  const injected = texts.filter((text) => isInjected(text));
  return { human: human.join(""), injected: injected.join("") };
}

function isInjected(text: string): boolean {
  const trimmed = text.trim();
  return (
    /^(?:<system-reminder>[\s\S]*?<\/system-reminder>\s*)+$/.test(trimmed) ||
    /^\[Request interrupted by user[^\]\n]*\]$/.test(trimmed) ||
    trimmed.startsWith("Another Claude session sent a message:\n<agent-message ")
  );
}

function toolResultsOf(content: unknown): ToolResultSeen[] {
  if (!Array.isArray(content)) return [];
  return content
    .filter(isRecord)
    .filter((block) => block.type === "tool_result")
    .map((block) => ({
      toolUseId: String(block.tool_use_id ?? ""),
      isError: block.is_error === true,
      text: textOf(block.content),
    }));
}

/** A string, or the concatenated `text` of an array of blocks. */
function textOf(value: unknown): string {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return "";
  return value
    .filter(isRecord)
    .map((block) => (typeof block.text === "string" ? block.text : ""))
    .join("");
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function toMessage(raw: Record<string, unknown>): Message {
  return { role: String(raw.role ?? ""), content: raw.content };
}
