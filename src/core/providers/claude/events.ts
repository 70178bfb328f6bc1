import { stringAt } from "../../common/json.ts";
import { POLICY_MARK, topLevel } from "../../fleet/notify.ts";
import { snakeSessionStart } from "../hook-wire.ts";
import type { HookEvent, NotifyRule, TurnSignal } from "../types.ts";

/** The hook events umbel registers with claude (2.1.332). */
export const CLAUDE_HOOK_EVENTS = [
  "SessionStart",
  "UserPromptSubmit",
  "Stop",
  "StopFailure",
  "Notification",
  "PermissionRequest",
  "PreToolUse",
  "PostToolUse",
  "PostToolUseFailure",
  "SubagentStart",
  "SubagentStop",
  "SessionEnd",
] as const;

/** The prompt claude injects when it continues a turn after a usage limit reset (2.1.332). */
const AUTO_CONTINUE = /^Your claude\.ai usage limit has reset\. Continue the task/;

/** Notification types that mean "a person has to answer something"; idle_prompt is not one. */
const INPUT_NOTIFICATIONS = new Set(["permission_prompt", "agent_needs_input", "elicitation_dialog"]);

export function interpretEvent(event: HookEvent): TurnSignal {
  const p = event.payload;
  const str = (key: string): string | null => stringAt(p, key);
  switch (event.name) {
    case "SessionStart":
      return snakeSessionStart(p);
    case "UserPromptSubmit": {
      const prompt = str("prompt");
      // Subagent reports and task notifications arrive as prompts too; they are not the caller's turn,
      // nor is claude's own continuation after a usage limit resets (it continues the limited turn).
      const human = !(
        prompt &&
        (/^<(agent-message|task-notification)\b/.test(prompt) || AUTO_CONTINUE.test(prompt))
      );
      return { kind: "submitted", promptId: str("prompt_id"), prompt, human };
    }
    case "Stop":
      return {
        kind: "stop",
        promptId: str("prompt_id"),
        message: str("last_assistant_message"),
        backgroundTasks: runningTasks(p),
      };
    case "StopFailure":
      return {
        kind: "failure",
        promptId: str("prompt_id"),
        error: str("error") ?? "unknown",
        message: str("last_assistant_message"),
      };
    case "PermissionRequest":
      return { kind: "input", text: describeTool(str("tool_name"), p.tool_input), detail: "permission" };
    case "Notification": {
      const type = str("notification_type") ?? "";
      if (!INPUT_NOTIFICATIONS.has(type)) return { kind: "ignore" };
      // permission_prompt follows the PermissionRequest of the same prompt ~1 s later (2.1.332).
      const repeats = type === "permission_prompt";
      return { kind: "input", text: str("message") ?? type, detail: type, ...(repeats ? { repeats } : {}) };
    }
    case "SubagentStart":
      return { kind: "subagent-start", id: str("agent_id") ?? "?" };
    case "SubagentStop":
      return { kind: "subagent-stop", id: str("agent_id") ?? "?" };
    case "SessionEnd":
      return { kind: "session-end", reason: str("reason") ?? "" };
    case "PreToolUse":
    case "PostToolUse":
    case "PostToolUseFailure":
      return { kind: "progress" };
    default:
      return { kind: "ignore" };
  }
}

function runningTasks(payload: Readonly<Record<string, unknown>>): string[] {
  const tasks = Array.isArray(payload.background_tasks) ? payload.background_tasks : [];
  return tasks.flatMap((t) =>
    t && typeof t === "object" && (t as { status?: unknown }).status === "running"
      ? [String((t as { id?: unknown }).id ?? "?")]
      : [],
  );
}

function describeTool(name: string | null, input: unknown): string {
  const tool = name ?? "tool";
  if (input && typeof input === "object") {
    const i = input as Record<string, unknown>;
    // AskUserQuestion asks the person a question (its options are on screen): the question is the prompt.
    const question = Array.isArray(i.questions)
      ? (i.questions[0] as { question?: unknown } | undefined)
      : undefined;
    if (typeof question?.question === "string") return `${tool}: ${question.question}`;
    const main = i.command ?? i.file_path ?? i.path ?? i.url ?? i.pattern;
    if (typeof main === "string") return `${tool}: ${main}`;
    return `${tool}: ${JSON.stringify(input)}`;
  }
  return tool;
}

/**
 * `spawn --notify` on claude 2.1.332: the events that end a turn. A Stop listing a background agent
 * as running is not the end (its report turn's Stop is; a Stop holds no raw JSON of a model's, only
 * strings, where its quotes are escaped); PermissionRequest asks a person unless the policy answered
 * it (hook.sh's own marker); Notification (its own field) only for the kinds a PermissionRequest
 * does not announce first.
 */
export const CLAUDE_NOTIFY_RULES: readonly NotifyRule[] = [
  { event: "Stop", reason: "stop", never: '"status":"running"' },
  { event: "StopFailure", reason: "provider-error" },
  { event: "PermissionRequest", reason: "input", never: POLICY_MARK },
  {
    event: "Notification",
    reason: "input",
    must: topLevel('"notification_type":"(agent_needs_input|elicitation_dialog)"'),
  },
];
