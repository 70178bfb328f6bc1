import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { readCodexConversation, trackCodexTurn } from "../../../src/core/providers/codex/stream.ts";
import { firstBlock, interleaveMalformed, outline } from "./conversation-cases.ts";

/**
 * Real codex-cli 0.171.0 rollouts against the stub model (codex-stream.test.ts, codex-transcript.test.ts):
 * rollout-print's "first plain", "use tools" (two exec_command calls), "think" (reasoning), "fail"
 * (HTTP 400); rollout-four-turns' plain, interrupted, failed and escalated-command turns.
 */
const lines = (name: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "codex", `${name}.jsonl`), "utf8")
    .trimEnd()
    .split("\n");
const PRINT = lines("rollout-print");
const FOUR = lines("rollout-four-turns");

/** A rollout line in 0.171.0's shape (fake-codex.sh writes the same). */
let ordinal = 0;
const row = (type: string, payload: Record<string, unknown>) =>
  JSON.stringify({
    timestamp: `2026-12-01T10:00:${String(ordinal).padStart(2, "0")}.000Z`,
    ordinal: ordinal++,
    type,
    payload,
  });
const meta = (turn: string, kind: string) => ({
  internal_chat_message_metadata_passthrough: { turn_id: turn, content_item_kinds: [kind] },
});
const userItem = (turn: string, text: string, kind = "user.text") =>
  row("response_item", {
    type: "message",
    role: "user",
    content: [{ type: "input_text", text }],
    ...meta(turn, kind),
  });
const answer = (turn: string, text: string) =>
  row("response_item", {
    type: "message",
    id: `msg_${text}`,
    role: "assistant",
    content: [{ type: "output_text", text }],
    ...meta(turn, "agent.text"),
  });
/** The response's token_usage_record, which closes its items into one API message. */
const usage = (turn: string, response: string) =>
  row("token_usage_record", {
    turn_id: turn,
    session_id: "s1",
    response_id: response,
    usage: { input_tokens: 9 },
  });
const started = (turn: string) => row("event_msg", { type: "task_started", turn_id: turn });
const completed = (turn: string) => row("event_msg", { type: "task_complete", turn_id: turn });
/** A turn no person started (codex's own continuation), then a typed turn that a second prompt steers. */
const STEERED = [
  row("session_meta", { session_id: "s1", id: "s1" }),
  started("t0"),
  userItem("t0", "<environment_context>…</environment_context>", "environments.environment_context"),
  answer("t0", "housekeeping"),
  usage("t0", "r0"),
  completed("t0"),
  started("t1"),
  userItem("t1", "<environment_context>…</environment_context>", "environments.environment_context"),
  userItem("t1", "write a poem"),
  answer("t1", "roses"),
  usage("t1", "r1"),
  userItem("t1", "make it rhyme"),
  answer("t1", "roses are red"),
  usage("t1", "r2"),
  completed("t1"),
];

describe("readCodexConversation", () => {
  test.each([
    [
      "rollout-print",
      PRINT,
      [
        ["first plain", ["a:text"]],
        ["use tools", ["a:tool_use", "u:tool_result", "a:tool_use", "u:tool_result", "a:text"]],
        ["think", ["a:thinking", "a:text"]],
        ["fail", ["a:text"]],
      ],
    ],
    [
      "rollout-four-turns",
      FOUR,
      [
        ["Say hello", ["a:text"]],
        ["please stub:hang now", []],
        ["stub:error 500", ["a:text"]],
        ["stub:escalate touch esc.txt", ["a:tool_use", "u:tool_result", "a:text"]],
      ],
    ],
  ])(
    "%s: one entry per typed prompt (environment context and <turn_aborted> are not)",
    (_, record, expected) => {
      expect(outline(readCodexConversation(record))).toEqual(expected as [string, string[]][]);
    },
  );

  const turnIds = (record: readonly string[]) =>
    record.flatMap((line) => {
      const p = JSON.parse(line).payload;
      return p.type === "task_started" ? [p.turn_id as string] : [];
    });
  test.each([PRINT, FOUR].flatMap((record) => turnIds(record).map((id, i) => [i, id, record] as const)))(
    "turn %i is exactly what trackCodexTurn(%s) renders from the whole rollout",
    (i, turnId, record) => {
      const tracker = trackCodexTurn(turnId);
      const tracked = record.flatMap((line) => tracker.push(line));
      expect(readCodexConversation(record)[i]?.messages).toEqual(tracked);
    },
  );

  test("the tool call's id is its result's; the failed turn is claude's API-error line", () => {
    const [, tools, , fail] = readCodexConversation(PRINT);
    const [call, result] = tools?.messages ?? [];
    const id = firstBlock(call).id;
    expect(result?.message).toMatchObject({ content: [{ tool_use_id: id, type: "tool_result" }] });
    expect(fail?.messages[0]).toMatchObject({ type: "assistant", is_api_error_message: true });
  });

  test("a turn no person started is not replayed; a steering prompt is an entry on the same turn", () => {
    expect(outline(readCodexConversation(STEERED))).toEqual([
      ["write a poem", ["a:text"]],
      ["make it rhyme", ["a:text"]],
    ]);
    expect(readCodexConversation(STEERED)[1]?.messages[0]).toMatchObject({ session_id: "s1" });
  });

  test.each([
    ["no lines", [] as string[]],
    ["one empty line", [""]],
    ["a session_meta only", [PRINT[0] ?? ""]],
    ["a started turn with no prompt yet", PRINT.slice(0, 4)],
    ["a prompt of a turn whose task_started is not in the record", [userItem("t9", "orphan")]],
  ])("an empty record (%s) is no turns", (_, record) => {
    expect(readCodexConversation(record)).toEqual([]);
  });

  test("malformed lines between the real ones are skipped, never thrown on", () => {
    expect(readCodexConversation(interleaveMalformed(PRINT))).toEqual(readCodexConversation(PRINT));
  });
});
