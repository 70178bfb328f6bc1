import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  findTurn,
  opencodeRecordSource,
  opencodeTurnEnd,
  parseOpencodeAnswer,
  parseRecord,
} from "../../../src/core/providers/opencode/transcript.ts";

/** Records of the real opencode 1.18.33 against the stub model, as umbel's query renders them. */
const record = (name: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "opencode", `${name}.jsonl`), "utf8");
const turns = record("record-turns");
const rejected = record("record-rejected");
const prompts = parseRecord(turns).filter((m) => m.role === "user");
const promptOf = (text: string) =>
  prompts.find((m) => m.parts.some((p) => String(p.text ?? "").startsWith(text)))?.id ?? null;

describe("opencode record", () => {
  test("the source is a read-only query of the session's settled messages", () => {
    expect(opencodeRecordSource("/d/opencode.db", "ses_1")).toMatchObject({
      kind: "sqlite",
      path: "/d/opencode.db",
      params: ["ses_1"],
    });
    expect(opencodeRecordSource("/d/opencode.db", null)).toMatchObject({ params: [""] });
  });

  test("a plain answer: the last assistant message's text", () => {
    const answer = parseOpencodeAnswer(turns, promptOf("first line"));
    expect(answer).toMatchObject({ complete: true, assistantMessages: 1 });
    expect(answer.text).toStartWith("STUB-REPLY len=70 ");
    expect(answer.sessionId).toStartWith("ses_");
  });

  test("a tool turn has two model calls; the answer is the one after the tool", () => {
    const id = promptOf("stub:write");
    expect(parseOpencodeAnswer(turns, id)).toMatchObject({ assistantMessages: 2, complete: true });
    expect(parseOpencodeAnswer(turns, id).text).toStartWith("STUB-TOOL-RESULT is_error=false len=24 ");
    expect(opencodeTurnEnd(turns, id)).toMatchObject({
      kind: "stop",
      message: expect.stringContaining("STUB-TOOL-RESULT"),
    });
  });

  test("without a prompt id: the last typed prompt's turn", () => {
    expect(findTurn(parseRecord(turns), null)?.prompt.parts[0]?.text).toBe("stub:hang");
  });

  test("an API error is a failure with its name and message; no text", () => {
    const id = promptOf("stub:error 401");
    expect(parseOpencodeAnswer(turns, id)).toMatchObject({ text: null, complete: true });
    expect(opencodeTurnEnd(turns, id)).toEqual({
      kind: "failure",
      promptId: id,
      error: "APIError",
      message: "stub error 401",
    });
  });

  test("Esc Esc is an interrupted turn", () => {
    expect(opencodeTurnEnd(turns, promptOf("stub:hang"))).toMatchObject({ kind: "interrupted" });
  });

  test("a rejected permission ends the turn on a tool call: a stop with no answer", () => {
    const id = parseRecord(rejected)[0]?.id ?? null;
    expect(parseOpencodeAnswer(rejected, id)).toMatchObject({ text: null, assistantMessages: 1 });
    expect(opencodeTurnEnd(rejected, id)).toMatchObject({ kind: "stop", message: null });
  });

  test("a prompt not in the record yet says nothing", () => {
    expect(opencodeTurnEnd(turns, "msg_unknown")).toBeNull();
    expect(parseOpencodeAnswer("", null)).toEqual({
      text: null,
      complete: false,
      sessionId: null,
      assistantMessages: 0,
    });
  });
});
