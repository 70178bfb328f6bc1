import { isRecord, stringAt } from "../../common/json.ts";
import type { HookEvent, HookWire, TurnSignal } from "../types.ts";

/**
 * opencode has no hooks file: umbel's plugin (hooks/opencode-plugin.js) appends its own records to
 * the events log, `{"event":…,"session":…}`, and its `ready` record names the SQLite database that
 * holds every session (the record `read` parses; opencode/record.ts).
 */
export const OPENCODE_HOOK_WIRE: HookWire = {
  eventName: (payload) => stringAt(payload, "event"),
  sessionId: (payload) => stringAt(payload, "session"),
  transcriptPath: (payload) => stringAt(payload, "db"),
};

/** The user message proves delivery: the plugin writes it once per prompt, from any session. */
export const OPENCODE_SUBMIT_EVENT = "prompt";

/** opencode 1.18.33 ends an interrupted turn (Esc Esc) with this error, then idle. */
const ABORTED = "MessageAbortedError";

/**
 * The plugin's records as turn signals (measured on 1.18.33, docs/providers.md). Per prompt:
 * prompt → busy (one per model step) → [permission | question → replied]* → idle. The plugin
 * already keeps only root sessions' busy / idle, counts an idle only after a busy, and puts the
 * turn's `session.error` on its idle; so idle alone ends a turn: a stop, an API error, or an abort.
 */
export function interpretOpencodeEvent(event: HookEvent): TurnSignal {
  const p = event.payload;
  switch (event.name) {
    case "ready":
      return { kind: "session-start", sessionId: null, transcriptPath: stringAt(p, "db") };
    case "prompt":
      // A sub-agent's task arrives as a user message of its child session: not typed by anyone.
      if (p.root === false) return { kind: "progress" };
      return {
        kind: "submitted",
        promptId: stringAt(p, "message"),
        prompt: stringAt(p, "text"),
        human: true,
      };
    case "busy":
    case "retry":
    case "replied":
      return { kind: "progress" };
    case "permission":
      return { kind: "input", text: describePermission(p), detail: "permission" };
    case "question":
      return { kind: "input", text: describeQuestion(p), detail: "question" };
    case "idle": {
      const error = isRecord(p.error) ? p.error : null;
      if (error === null) return { kind: "stop", promptId: null, message: null, backgroundTasks: [] };
      const name = stringAt(error, "name") ?? "UnknownError";
      if (name === ABORTED) return { kind: "interrupted", promptId: null, detail: "interrupted" };
      return { kind: "failure", promptId: null, error: name, message: stringAt(error, "message") };
    }
    default:
      return { kind: "ignore" };
  }
}

/**
 * `bash: echo hi`, `external_directory: /tmp/x (/tmp/x/*)`, `edit: src/a.ts`: the permission and
 * what it is for (opencode's `permission.asked` names the permission and its patterns).
 */
function describePermission(payload: Readonly<Record<string, unknown>>): string {
  const permission = stringAt(payload, "permission") ?? "permission";
  const patterns = Array.isArray(payload.patterns) ? payload.patterns.map(String) : [];
  const meta = isRecord(payload.metadata) ? payload.metadata : {};
  const subject =
    stringAt(meta, "command") ?? stringAt(meta, "parentDir") ?? stringAt(meta, "filepath") ?? null;
  if (subject === null) return `${permission}: ${patterns.join(", ")}`;
  const extra = patterns.length > 0 && patterns.join(", ") !== subject ? ` (${patterns.join(", ")})` : "";
  return `${permission}: ${subject}${extra}`;
}

/** `Which color? [Red | Blue]`, one per question. */
function describeQuestion(payload: Readonly<Record<string, unknown>>): string {
  const questions = Array.isArray(payload.questions) ? payload.questions.filter(isRecord) : [];
  if (questions.length === 0) return "question";
  return questions
    .map((q) => {
      const options = Array.isArray(q.options)
        ? q.options.map((o) => (isRecord(o) ? String(o.label ?? "") : String(o)))
        : [];
      const text = stringAt(q, "question") ?? stringAt(q, "header") ?? "question";
      return options.length > 0 ? `${text} [${options.join(" | ")}]` : text;
    })
    .join("\n");
}
