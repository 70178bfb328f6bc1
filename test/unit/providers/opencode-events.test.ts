import { describe, expect, test } from "bun:test";
import { interpretOpencodeEvent, OPENCODE_HOOK_WIRE } from "../../../src/core/providers/opencode/events.ts";
import { assessTurn, findSessionId, findTranscriptPath } from "../../../src/core/wait/turn.ts";
import { parseEvents } from "../../../src/core/worker/events.ts";

const wire = { hookWire: OPENCODE_HOOK_WIRE };
const line = (payload: object) => `${JSON.stringify(payload)}\n`;
const signal = (payload: Record<string, unknown>) =>
  interpretOpencodeEvent({ index: 0, name: String(payload.event), payload });
const S = "ses_1";

describe("opencode plugin records", () => {
  test.each([
    [
      { event: "ready", db: "/d/opencode.db" },
      { kind: "session-start", sessionId: null, transcriptPath: "/d/opencode.db" },
    ],
    [
      { event: "prompt", session: S, message: "msg_1", root: true, text: "hi" },
      { kind: "submitted", promptId: "msg_1", prompt: "hi", human: true },
    ],
    [{ event: "prompt", session: "ses_child", message: "msg_2", root: false }, { kind: "progress" }],
    [{ event: "busy", session: S }, { kind: "progress" }],
    [{ event: "retry", session: S, attempt: 1 }, { kind: "progress" }],
    [{ event: "replied", session: S, reply: "once" }, { kind: "progress" }],
    [
      { event: "idle", session: S },
      { kind: "stop", promptId: null, message: null, backgroundTasks: [] },
    ],
    [
      { event: "idle", session: S, error: { name: "APIError", message: "stub error 401" } },
      { kind: "failure", promptId: null, error: "APIError", message: "stub error 401" },
    ],
    [
      { event: "idle", session: S, error: { name: "MessageAbortedError", message: "Aborted" } },
      { kind: "interrupted", promptId: null, detail: "interrupted" },
    ],
    [{ event: "error", session: S, name: "APIError" }, { kind: "ignore" }],
  ])("%j", (payload, expected) => {
    expect(signal(payload)).toEqual(expected as never);
  });

  test("a permission and a question are input, with what they ask", () => {
    expect(
      signal({
        event: "permission",
        permission: "external_directory",
        patterns: ["/tmp/oc/*"],
        metadata: { filepath: "/tmp/oc/x.txt", parentDir: "/tmp/oc" },
      }),
    ).toEqual({ kind: "input", text: "external_directory: /tmp/oc (/tmp/oc/*)", detail: "permission" });
    expect(
      signal({
        event: "permission",
        permission: "bash",
        patterns: ["echo hi"],
        metadata: { command: "echo hi" },
      }),
    ).toEqual({
      kind: "input",
      text: "bash: echo hi",
      detail: "permission",
    });
    expect(
      signal({
        event: "question",
        questions: [{ question: "Which color?", options: [{ label: "Red" }, { label: "Blue" }] }],
      }),
    ).toEqual({ kind: "input", text: "Which color? [Red | Blue]", detail: "question" });
  });

  test("a turn: prompt → busy → permission (input) → replied (running) → idle (stop); the wire names db and session", () => {
    const log =
      line({ event: "ready", db: "/d/opencode.db" }) +
      line({ event: "prompt", session: S, message: "msg_1", root: true, text: "go" }) +
      line({ event: "busy", session: S }) +
      line({ event: "permission", session: S, permission: "bash", patterns: ["ls"] });
    const provider = { ...wire, interpretEvent: interpretOpencodeEvent } as never;
    expect(assessTurn(provider, parseEvents(wire, log), 1)).toMatchObject({
      status: "input",
      text: "bash: ls",
    });
    const more = log + line({ event: "replied", session: S }) + line({ event: "busy", session: S });
    expect(assessTurn(provider, parseEvents(wire, more), 1)).toMatchObject({
      status: "running",
      promptId: "msg_1",
    });
    const done = more + line({ event: "idle", session: S });
    expect(assessTurn(provider, parseEvents(wire, done), 1)).toMatchObject({
      status: "stop",
      promptId: "msg_1",
    });
    expect(findTranscriptPath(wire, parseEvents(wire, done))).toBe("/d/opencode.db");
    expect(findSessionId(wire, parseEvents(wire, done))).toBe(S);
  });
});
