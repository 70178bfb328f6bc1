// Reading a codex rollout: test/fixtures/codex/rollout-four-turns.jsonl is a real 0.171.0 rollout
// (long instruction texts shortened, paths replaced) of four turns against the stub model: an
// answer, an interrupted turn (stub:hang + Esc), a failed one (stub:error 500, no hook fired) and an
// approved escalation whose tool result is echoed.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { findCodexTurnEnd, parseCodexAnswer } from "../../../src/core/providers/codex/transcript.ts";

const ROLLOUT = readFileSync(
  join(import.meta.dir, "..", "..", "fixtures", "codex", "rollout-four-turns.jsonl"),
  "utf8",
);
const SESSION = "01a2296f-8f00-7bd2-b7f1-7d320e4c35ac";
const TURNS = {
  hello: "01a2296f-a8ea-73f1-9f93-8f9dde875a29",
  hang: "01a2296f-c750-7ba2-9445-1cf1a20aff28",
  error: "01a2296f-d9bb-76c3-8c25-940ba00a4851",
  escalate: "01a2296f-edbb-7802-bd15-23f367278f2b",
};

describe("findCodexTurnEnd", () => {
  test.each([
    [
      TURNS.hello,
      {
        status: "complete",
        turnId: TURNS.hello,
        message: "STUB-REPLY len=9 sha=6d995dba1af0 head=Say hello",
      },
    ],
    [TURNS.hang, { status: "aborted", turnId: TURNS.hang, reason: "interrupted" }],
    [
      TURNS.error,
      {
        status: "failed",
        turnId: TURNS.error,
        error: "We’re currently experiencing high demand, which may cause temporary errors.",
        errorKind: "internal_server_error",
      },
    ],
    [
      TURNS.escalate,
      {
        status: "complete",
        turnId: TURNS.escalate,
        message: "STUB-TOOL-RESULT is_error=false len=0 sha=e3b0c44298fc head=",
      },
    ],
    ["not-a-turn", { status: "running", turnId: "not-a-turn" }],
  ])("turn %s", (turn, end) => {
    expect(findCodexTurnEnd(ROLLOUT, turn)).toEqual(end as never);
  });

  test("null means the last turn the file started", () => {
    expect(findCodexTurnEnd(ROLLOUT, null)).toMatchObject({ status: "complete", turnId: TURNS.escalate });
    expect(findCodexTurnEnd("", null)).toEqual({ status: "running", turnId: null });
  });

  test("the Stop hook runs before task_complete: a file cut there is still running", () => {
    const lines = ROLLOUT.split("\n");
    const complete = lines.findIndex((l) => l.includes('"task_complete"') && l.includes(TURNS.hello));
    const before = lines.slice(0, complete).join("\n");
    expect(findCodexTurnEnd(before, TURNS.hello)).toEqual({ status: "running", turnId: TURNS.hello });
    expect(parseCodexAnswer(before, TURNS.hello)).toMatchObject({
      text: "STUB-REPLY len=9 sha=6d995dba1af0 head=Say hello",
      complete: false,
    });
  });

  test("an object codex_error_info names its kind; a half-written last line is skipped", () => {
    const failed = `{"type":"event_msg","payload":{"type":"task_complete","turn_id":"t1","last_agent_message":null,"error":{"message":"unexpected status 401 Unauthorized","codex_error_info":{"http_connection_failed":{"http_status_code":401}}}}}\n{"type":"event_msg","payl`;
    expect(findCodexTurnEnd(failed, "t1")).toEqual({
      status: "failed",
      turnId: "t1",
      error: "unexpected status 401 Unauthorized",
      errorKind: "http_connection_failed",
    });
  });
});

describe("parseCodexAnswer", () => {
  test.each([
    [TURNS.hello, "STUB-REPLY len=9 sha=6d995dba1af0 head=Say hello", true, 1],
    [TURNS.hang, null, true, 0],
    [TURNS.error, null, true, 0],
    [TURNS.escalate, "STUB-TOOL-RESULT is_error=false len=0 sha=e3b0c44298fc head=", true, 1],
  ])("turn %s", (turn, text, complete, assistantMessages) => {
    expect(parseCodexAnswer(ROLLOUT, turn)).toEqual({
      text,
      complete,
      sessionId: SESSION,
      assistantMessages,
    });
  });

  test("several assistant messages in one turn (a retried stream): the last one is the answer", () => {
    const message = (text: string) =>
      JSON.stringify({
        type: "response_item",
        payload: {
          type: "message",
          role: "assistant",
          content: [{ type: "output_text", text }],
          internal_chat_message_metadata_passthrough: { turn_id: "t1" },
        },
      });
    const rollout = [
      '{"type":"session_meta","payload":{"session_id":"s1","id":"s1"}}',
      '{"type":"event_msg","payload":{"type":"task_started","turn_id":"t1"}}',
      message("partial"),
      message("the whole answer"),
    ].join("\n");
    expect(parseCodexAnswer(rollout, "t1")).toEqual({
      text: "the whole answer",
      complete: false,
      sessionId: "s1",
      assistantMessages: 2,
    });
    expect(parseCodexAnswer(rollout, null).text).toBe("the whole answer");
  });
});
