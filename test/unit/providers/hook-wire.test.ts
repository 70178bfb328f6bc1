// Each provider declares how its hook payloads name the event, the session and the transcript; the
// engine reads the events log only through that declaration (opencode's plugin writes its own shape).
import { describe, expect, test } from "bun:test";
import { getProvider, listProviders } from "../../../src/core/providers/registry.ts";
import type { HookWire } from "../../../src/core/providers/types.ts";
import { findSessionId, findTranscriptPath } from "../../../src/core/wait/turn.ts";
import { parseEvents } from "../../../src/core/worker/events.ts";

const line = (payload: unknown) => `${JSON.stringify(payload)}\n`;

/** A made-up wire in another shape: `{"type":…,"properties":{"sessionID":…,"file":…}}`. */
const nested = (payload: Readonly<Record<string, unknown>>, key: string): string | null => {
  const properties = payload.properties;
  if (typeof properties !== "object" || properties === null) return null;
  const value = (properties as Record<string, unknown>)[key];
  return typeof value === "string" ? value : null;
};
const plugin: { hookWire: HookWire } = {
  hookWire: {
    eventName: (payload) => (typeof payload.type === "string" ? payload.type : null),
    sessionId: (payload) => nested(payload, "sessionID"),
    transcriptPath: (payload) => nested(payload, "file"),
  },
};

describe("hook wire", () => {
  // opencode has no hooks: its plugin writes its own records (the test below).
  const hooked = listProviders().filter((provider) => provider.id !== "opencode");
  test.each(hooked.map((provider) => [provider.id, provider] as const))(
    "%s reads claude's field names (its hooks, and gemini's own markers, write them)",
    (_id, provider) => {
      const log =
        line({ hook_event_name: "SessionStart", session_id: "s1", transcript_path: "/t.jsonl" }) +
        line({ hook_event_name: "BeforeModel" }) +
        line({ type: "session.idle" });
      const events = parseEvents(provider, log);
      expect(events.map((event) => event.name)).toEqual(["SessionStart", "BeforeModel", "unknown"]);
      expect(findSessionId(provider, events)).toBe("s1");
      expect(findTranscriptPath(provider, events)).toBe("/t.jsonl");
    },
  );

  test("a provider with its own wire is read through it, never through claude's names", () => {
    const log =
      line({ type: "session.created", properties: { sessionID: "ses_1", file: "/s/ses_1.json" } }) +
      line({ hook_event_name: "Stop", session_id: "claude", transcript_path: "/claude.jsonl" }) +
      "not json\n";
    const events = parseEvents(plugin, log);
    expect(events.map((event) => event.name)).toEqual(["session.created", "unknown", "invalid"]);
    expect(findSessionId(plugin, events)).toBe("ses_1");
    expect(findTranscriptPath(plugin, events)).toBe("/s/ses_1.json");
    expect(parseEvents(plugin, log, 1).map((event) => event.index)).toEqual([1, 2]);
  });

  test("opencode reads its plugin's records (event, session, db), never claude's names", () => {
    const log =
      line({ event: "ready", db: "/d/opencode.db" }) +
      line({ hook_event_name: "Stop", session_id: "claude", transcript_path: "/claude.jsonl" }) +
      line({ event: "prompt", session: "ses_1", message: "msg_1" });
    const events = parseEvents(getProvider("opencode"), log);
    expect(events.map((event) => event.name)).toEqual(["ready", "unknown", "prompt"]);
    expect(findSessionId(getProvider("opencode"), events)).toBe("ses_1");
    expect(findTranscriptPath(getProvider("opencode"), events)).toBe("/d/opencode.db");
  });

  test("empty values say nothing; the latest announcement wins", () => {
    const provider = listProviders()[0];
    if (!provider) throw new Error("no providers");
    const events = parseEvents(
      provider,
      line({ hook_event_name: "SessionStart", session_id: "old", transcript_path: "/old.jsonl" }) +
        line({ hook_event_name: "SessionStart", session_id: "new", transcript_path: "/new.jsonl" }) +
        line({ hook_event_name: "Stop", session_id: "", transcript_path: "" }),
    );
    expect(findSessionId(provider, events)).toBe("new");
    expect(findTranscriptPath(provider, events)).toBe("/new.jsonl");
  });
});
