import { parseJsonObject } from "../../common/json.ts";
import type { TranscriptAnswer } from "../transcript-types.ts";

type Entry = Record<string, unknown> & {
  type?: unknown;
  message?: { id?: unknown; content?: unknown; role?: unknown } | undefined;
};

/**
 * The final assistant text of a turn in a claude transcript (JSONL, appended while we read, so bad
 * lines are skipped). The rule (docs/providers.md, "Answer (read)"): find the human user line of the turn (by promptId,
 * else the last one with origin.kind "human"); of every later non-sidechain assistant line without
 * isApiErrorMessage, take the last message.id that has text and join its text blocks with "\n\n".
 * One API message is split into one line per content block, sharing message.id.
 */
export function parseClaudeAnswer(transcript: string, promptId: string | null): TranscriptAnswer {
  const entries = parseLines(transcript);
  const start = findTurnStart(entries, promptId);
  const sessionId = findSessionId(entries);
  if (start < 0) return { text: null, complete: false, sessionId, assistantMessages: 0 };
  // The turn runs until the next human prompt (later non-human turns, such as a subagent report, belong to it).
  const rest = entries.slice(start + 1);
  const next = rest.findIndex((e) => e.type === "user" && isHuman(e));
  const after = next < 0 ? rest : rest.slice(0, next);
  const assistant = after.filter(
    (e) => e.type === "assistant" && e.isSidechain !== true && e.isApiErrorMessage !== true,
  );
  const ids: string[] = [];
  for (const e of assistant) {
    const id = messageId(e);
    if (!ids.includes(id)) ids.push(id);
  }
  let text: string | null = null;
  for (let i = ids.length - 1; i >= 0 && text === null; i--) {
    const blocks = assistant.filter((e) => messageId(e) === ids[i]).flatMap(textBlocks);
    if (blocks.length > 0) text = blocks.join("\n\n");
  }
  const lastAssistant = after.findLastIndex((e) => e.type === "assistant");
  const complete = after.some(
    (e, i) => i > lastAssistant && e.type === "system" && e.subtype === "turn_duration",
  );
  return { text, complete, sessionId, assistantMessages: ids.length };
}

/**
 * How many of a turn's calls of `tool` claude answered itself with "No such tool available", the
 * call never reaching the tool's server: 2.1.332 under load sent a turn's first request while an
 * MCP server was still connecting (its transcript lists it in pendingMcpServers), and a model that
 * called the tool anyway, by its bare name or the server's, got that error. Matched by tool_use id:
 * a tool_use of the tool's name (`tool`, or `mcp__<server>__tool`) in the turn, and its tool_result.
 */
export function unloadedToolCalls(transcript: string, promptId: string | null, tool: string): number {
  const entries = parseLines(transcript);
  const start = findTurnStart(entries, promptId);
  if (start < 0) return 0;
  const rest = entries.slice(start + 1);
  const next = rest.findIndex((e) => e.type === "user" && isHuman(e));
  const turn = next < 0 ? rest : rest.slice(0, next);
  const calls = new Set<string>();
  for (const e of turn)
    if (e.type === "assistant")
      for (const b of blocksOf(e))
        if (b.type === "tool_use" && typeof b.id === "string" && isTool(b.name, tool)) calls.add(b.id);
  let refused = 0;
  for (const e of turn)
    if (e.type === "user")
      for (const b of blocksOf(e))
        if (
          b.type === "tool_result" &&
          b.is_error === true &&
          typeof b.tool_use_id === "string" &&
          calls.has(b.tool_use_id) &&
          typeof b.content === "string" &&
          b.content.includes("No such tool available")
        )
          refused++;
  return refused;
}

function isTool(name: unknown, tool: string): boolean {
  return (
    typeof name === "string" && (name === tool || (name.startsWith("mcp__") && name.endsWith(`__${tool}`)))
  );
}

function blocksOf(e: Entry): Record<string, unknown>[] {
  const content = e.message?.content;
  return Array.isArray(content)
    ? content.filter((b): b is Record<string, unknown> => typeof b === "object" && b !== null)
    : [];
}

function parseLines(transcript: string): Entry[] {
  // A line being written while we read is skipped; the next read sees it whole.
  return transcript.split("\n").flatMap((line): Entry[] => {
    const value = parseJsonObject(line);
    return value === null ? [] : [value as Entry];
  });
}

function findTurnStart(entries: Entry[], promptId: string | null): number {
  if (promptId) {
    const byId = entries.findIndex((e) => e.type === "user" && e.promptId === promptId && isHuman(e));
    if (byId >= 0) return byId;
  }
  return entries.findLastIndex((e) => e.type === "user" && isHuman(e));
}

function isHuman(e: Entry): boolean {
  const origin = e.origin as { kind?: unknown } | undefined;
  if (origin && typeof origin === "object") return origin.kind === "human";
  if (e.promptSource !== undefined) return e.promptSource === "typed";
  // Older transcripts: a user line whose content is a string and not meta.
  return e.isMeta !== true && typeof e.message?.content === "string";
}

function messageId(e: Entry): string {
  const id = e.message?.id;
  return typeof id === "string" ? id : `line:${String(e.uuid ?? "")}`;
}

function textBlocks(e: Entry): string[] {
  const content = e.message?.content;
  if (typeof content === "string") return content === "" ? [] : [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((b) =>
    b &&
    typeof b === "object" &&
    (b as { type?: unknown }).type === "text" &&
    typeof (b as { text?: unknown }).text === "string"
      ? [(b as { text: string }).text]
      : [],
  );
}

function findSessionId(entries: Entry[]): string | null {
  for (const e of entries) if (typeof e.sessionId === "string") return e.sessionId;
  return null;
}
