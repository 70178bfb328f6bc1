import { foldSlashPrompt, neutraliseShellPrefix, normalisePrompt, type PasteFold } from "../prompt.ts";
import { answerDialog } from "../screen.ts";
import { launchExtras, mergeSettings } from "./claude-launch.ts";
import { trackClaudeTurn } from "./claude-stream.ts";
import { parseClaudeAnswer } from "./claude-transcript.ts";
import type { HookEvent, LaunchInput, LaunchPlan, Provider, ScreenState, TurnSignal } from "./types.ts";

/**
 * Claude Code (`claude`), measured on 2.1.332 (../shared/notes/claude.md). Hooks come in through
 * `--settings '<json>'`, which shows no review dialog and touches nothing in the user's project.
 */

const HOOK_EVENTS = [
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

/** Notification types that mean "a person has to answer something"; idle_prompt is not one. */
const INPUT_NOTIFICATIONS = new Set(["permission_prompt", "agent_needs_input", "elicitation_dialog"]);

export const claude: Provider = {
  id: "claude",
  displayName: "Claude Code",
  binEnv: "UMBEL_CLAUDE_BIN",
  defaultBin: "claude",
  // Named one by one: a host Claude Code exports CLAUDECODE and CLAUDE_CODE_CHILD_SESSION, and the
  // latter turns transcript writing off in every worker that inherits it.
  envNames: [
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "ANTHROPIC_SMALL_FAST_MODEL",
    "ANTHROPIC_DEFAULT_OPUS_MODEL",
    "ANTHROPIC_DEFAULT_SONNET_MODEL",
    "ANTHROPIC_DEFAULT_HAIKU_MODEL",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_MAX_RETRIES",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "DISABLE_AUTOUPDATER",
    "DISABLE_TELEMETRY",
    "IS_SANDBOX",
  ],
  // An inherited key silently switches a subscription user to API billing.
  explicitOnlyEnv: ["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"],
  hookEvents: HOOK_EVENTS,
  submitEvent: "UserPromptSubmit",
  planLaunch,
  classifyScreen,
  stillScreen,
  preparePrompt,
  interpretEvent,
  parseAnswer: parseClaudeAnswer,
  trackTurn: trackClaudeTurn,
  maxTurnsHalt: "hook",
  // Stop right after the tool that just ran (no Stop hook; the transcript ends with turn_duration).
  haltHooks: (reason) => ({
    PostToolUse: { continue: false, stopReason: reason },
    PostToolUseFailure: { continue: false, stopReason: reason },
  }),
};

/**
 * claude folds a paste of more than 800 characters or more than 2 line breaks (in a pane of 12+ rows;
 * fewer rows fold sooner) into `[Pasted text #N +L lines]`, read from the 2.1.332 binary and checked.
 */
const PASTE_FOLD: PasteFold = { maxChars: 800, maxLineBreaks: 2 };

/**
 * The text umbel pastes for a prompt. `/…` (after any leading whitespace) would run as a slash
 * command, so it gets trailing newlines until the paste folds (a folded paste is always text; the
 * model sees the newlines). `!…` would switch the box to shell mode, so it gets a leading space.
 */
function preparePrompt(prompt: string): string {
  return neutraliseShellPrefix(foldSlashPrompt(normalisePrompt(prompt), PASTE_FOLD));
}

function planLaunch(input: LaunchInput): LaunchPlan {
  const hook = [{ matcher: "", hooks: [{ type: "command", command: input.hookCommand }] }];
  const own: Record<string, unknown> = {
    hooks: Object.fromEntries(HOOK_EVENTS.map((event) => [event, hook])),
  };
  const bypass = input.unattended === true || input.permissionMode === "bypassPermissions";
  if (bypass) own.skipDangerousModePermissionPrompt = true;
  const argv: string[] = [input.bin];
  if (input.resumeSessionId) argv.push("--resume", input.resumeSessionId);
  else if (input.continueSession) argv.push("--continue");
  else argv.push("--session-id", input.sessionId);
  argv.push("--settings", JSON.stringify(mergeSettings(own, input.settings)));
  if (input.model) argv.push("--model", input.model);
  if (bypass) argv.push("--permission-mode", "bypassPermissions");
  else if (input.permissionMode) argv.push("--permission-mode", input.permissionMode);
  if (input.allowedTools && input.allowedTools.length > 0)
    argv.push("--allowedTools", input.allowedTools.join(","));
  argv.push(...launchExtras(input));
  // Without it every worker runs `npm view @anthropic-ai/claude-code@latest` a few seconds in.
  const env: Record<string, string> = { DISABLE_AUTOUPDATER: "1" };
  // As root, bypass mode refuses to start ("cannot be used with root/sudo privileges") unless IS_SANDBOX=1.
  if (bypass && input.isRoot) env.IS_SANDBOX = "1";
  return { argv, env };
}

const TRUST_OPTION = "Yes, I trust this folder";
const ADD_DIR_OPTION = "Yes, add it";

export function classifyScreen(screen: string): ScreenState {
  if (screen.includes("didn't start because this folder isn't trusted"))
    return { kind: "exited", text: tail(screen) };
  if (screen.includes(TRUST_OPTION)) return dialog("trust", screen, TRUST_OPTION);
  // --add-dir of a folder claude has not trusted yet asks again, defaulting to "No, exit".
  if (screen.includes(ADD_DIR_OPTION)) return dialog("add-dir", screen, ADD_DIR_OPTION);
  if (screen.includes("Detected a custom API key")) return dialog("api-key", screen, "Yes");
  if (screen.includes("Yes, I accept") && screen.includes("Bypass Permissions")) {
    return dialog("bypass-permissions", screen, "Yes, I accept");
  }
  if (screen.includes("Settings Warning")) {
    return {
      kind: "dialog",
      dialog: "settings-warning",
      keys: [],
      fatal: "claude rejected umbel's --settings",
    };
  }
  if (/Select login method|Not logged in|run \/login|Log in with your Claude account/.test(screen)) {
    return { kind: "sign-in", text: tail(screen) };
  }
  if (/Enter to continue/.test(screen) && /auto mode/i.test(screen) && /classifier|charge/.test(screen)) {
    return { kind: "dialog", dialog: "auto-mode-billing-notice", keys: ["Enter"] };
  }
  const permission = /Do you want to (proceed|create|make this edit|allow)[^\n]*/.exec(screen);
  if (permission && /Esc to cancel/.test(screen)) return { kind: "input", text: permissionBlock(screen) };
  if (/esc to interrupt/.test(screen)) return { kind: "busy" };
  if (/^❯/m.test(screen) && /^─{8,}/m.test(screen)) return { kind: "ready" };
  return { kind: "unknown" };
}

/**
 * claude's busy line ticks every second (`✻ Puttering… (12s · ↓ 40 tokens)`) and its glyph cycles,
 * even when the request hangs; `--idle-timeout` must see through that, so the spinner line goes
 * and digits are blanked.
 */
function stillScreen(screen: string): string {
  return screen
    .split("\n")
    .filter((l) => !/^\S\s+\S.*…/.test(l))
    .join("\n")
    .replace(/\d+/g, "#");
}

function dialog(name: string, screen: string, target: string): ScreenState {
  const keys = answerDialog(screen, target);
  return keys ? { kind: "dialog", dialog: name, keys } : { kind: "unknown" };
}

/** The prompt block: from the tool line (`● Bash(...)`) or the header down to "Esc to cancel". */
function permissionBlock(screen: string): string {
  const lines = screen.split("\n");
  const end = lines.findLastIndex((l) => l.includes("Esc to cancel"));
  let start = lines.findLastIndex((l, i) => i < end && /^[─]{8,}/.test(l.trim()));
  if (start < 0) start = Math.max(0, end - 15);
  return lines
    .slice(start + 1, end + 1)
    .map((l) => l.trimEnd())
    .filter((l) => l.trim() !== "" && !/^[╌─]+$/.test(l.trim()))
    .join("\n");
}

function tail(screen: string): string {
  return screen
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => l !== "")
    .slice(-12)
    .join("\n");
}

function interpretEvent(event: HookEvent): TurnSignal {
  const p = event.payload;
  const str = (key: string): string | null => (typeof p[key] === "string" ? (p[key] as string) : null);
  switch (event.name) {
    case "SessionStart":
      return { kind: "session-start", sessionId: str("session_id"), transcriptPath: str("transcript_path") };
    case "UserPromptSubmit": {
      const prompt = str("prompt");
      // Subagent reports and task notifications arrive as prompts too; they are not the caller's turn.
      const human = !(prompt && /^<(agent-message|task-notification)\b/.test(prompt));
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
      return { kind: "input", text: str("message") ?? type, detail: type };
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
    const main = i.command ?? i.file_path ?? i.path ?? i.url ?? i.pattern;
    if (typeof main === "string") return `${tool}: ${main}`;
    return `${tool}: ${JSON.stringify(input)}`;
  }
  return tool;
}
