import { describe, expect, test } from "bun:test";
import { claude } from "../../../src/core/providers/claude/provider.ts";
import type { Provider } from "../../../src/core/providers/types.ts";
import { findRecordSource } from "../../../src/core/wait/turn.ts";
import { parseEvents } from "../../../src/core/worker/events.ts";

const ev = (payload: object) => `${JSON.stringify(payload)}\n`;

describe("findRecordSource", () => {
  test("a transcript file by default; none before the hooks name one", () => {
    expect(findRecordSource(claude, parseEvents(claude, ev({ hook_event_name: "Stop" })))).toBeNull();
    const log = ev({ hook_event_name: "SessionStart", session_id: "S", transcript_path: "/t.jsonl" });
    expect(findRecordSource(claude, parseEvents(claude, log))).toEqual({ kind: "file", path: "/t.jsonl" });
  });

  test("a provider that keeps a database turns the locator and the session id into its query", () => {
    const provider: Pick<Provider, "hookWire" | "recordSource"> = {
      hookWire: claude.hookWire,
      recordSource: (path, sessionId) => ({
        kind: "sqlite",
        path,
        query: "select ?1",
        params: [sessionId ?? ""],
      }),
    };
    const log =
      ev({ hook_event_name: "SessionStart", transcript_path: "/db.sqlite" }) +
      ev({ hook_event_name: "UserPromptSubmit", session_id: "ses_1" });
    expect(findRecordSource(provider, parseEvents(claude, log))).toEqual({
      kind: "sqlite",
      path: "/db.sqlite",
      query: "select ?1",
      params: ["ses_1"],
    });
  });
});
