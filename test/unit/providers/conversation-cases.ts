import type { ConversationTurn, StreamMessage } from "../../../src/core/providers/transcript-types.ts";

/**
 * Shared by the providers' readConversation tests: a turn as `prompt → blocks` ("a:tool_use" an
 * assistant line's block, "u:tool_result" a tool-result line), and lines no record parser may trip on.
 */
export function outline(turns: readonly ConversationTurn[]): [string, string[]][] {
  return turns.map((turn) => [turn.prompt, turn.messages.map(blockOf)]);
}

function blockOf(m: StreamMessage): string {
  const content = (m.message as { content?: { type?: string }[] } | undefined)?.content;
  const first = Array.isArray(content) ? content[0]?.type : undefined;
  return `${m.type === "assistant" ? "a" : m.type === "user" ? "u" : m.type}:${first ?? "?"}`;
}

/** Torn, non-object and shapeless lines, as a record being appended or a bad row shows them. */
const MALFORMED: readonly string[] = [
  "",
  "not json",
  '{"type":"user","message":{"role":"user","content":"torn',
  "[1,2,3]",
  "null",
  '"a string"',
  "{}",
  '{"payload":5,"id":7,"type":7}',
];

/** `lines` with a malformed line before each of them and after the last. */
export function interleaveMalformed(lines: readonly string[]): string[] {
  return [...lines.flatMap((line, i) => [MALFORMED[i % MALFORMED.length] ?? "", line]), ...MALFORMED];
}

/** A message's first content block (an assistant line holds one), or an empty object. */
export function firstBlock(m: StreamMessage | undefined): Record<string, unknown> {
  const content = (m?.message as { content?: unknown } | undefined)?.content;
  const first: unknown = Array.isArray(content) ? content[0] : undefined;
  return first !== null && typeof first === "object" ? (first as Record<string, unknown>) : {};
}
