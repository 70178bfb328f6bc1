import {
  foldSlashPrompt,
  neutraliseShellPrefix,
  normalisePrompt,
  type PasteFold,
} from "../../worker/prompt.ts";
import { CLAUDE_POLICY } from "../hook-policy.ts";
import { SNAKE_HOOK_WIRE } from "../hook-wire.ts";
import type { LaunchInput, LaunchPlan } from "../launch-types.ts";
import { carryUnder } from "../session-carry.ts";
import type { PlainProvider } from "../types.ts";
import { CLAUDE_BILLING_ENV, refuseClaudeSwitches } from "./billing.ts";
import { CLAUDE_HOOK_EVENTS, CLAUDE_NOTIFY_RULES, interpretEvent } from "./events.ts";
import { launchExtras, mergeSettings, STRUCTURED_TOOL_NAME } from "./launch.ts";
import { claudeLimits } from "./limits.ts";
import { CLAUDE_ANSWERS, classifyScreen, stillScreen } from "./screen.ts";
import { claudeSignInClues } from "./sign-in.ts";
import { readClaudeConversation, trackClaudeTurn } from "./stream.ts";
import { claudeTurnSettled, readClaudeTelemetry } from "./telemetry.ts";
import { parseClaudeAnswer, unloadedToolCalls } from "./transcript.ts";

/**
 * Claude Code (`claude`), measured on 2.1.332 (docs/providers.md). Hooks come in through
 * `--settings '<json>'`, which shows no review dialog and touches nothing in the user's project.
 */

export const claude: PlainProvider = {
  id: "claude",
  displayName: "Claude Code",
  tested: { version: "2.1.332", npm: "@anthropic-ai/claude-code" },
  // A UUID.
  sessionIdPattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  tools: {
    command: ["Bash"],
    write: ["Write"],
    edit: ["Edit", "MultiEdit", "NotebookEdit"],
    web: ["WebSearch"],
    mcpName: /^mcp__(.+?)__(.+)$/,
    read: ["Read", "NotebookRead"],
    readsImages: true,
    search: ["Grep", "Glob", "LS", "ToolSearch"],
    fetch: ["WebFetch"],
    delegate: ["Task", "Agent"],
    todo: { name: "TodoWrite", list: "todos" },
    // A failed Bash: `Exit code N` first, then the output.
    commandResult(text) {
      const head = /^Exit code (-?\d+)\n?/.exec(text);
      return head ? { output: text.slice(head[0].length), exitCode: Number(head[1]) } : null;
    },
  },
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
  billingEnv: CLAUDE_BILLING_ENV,
  checkLaunchOptions: refuseClaudeSwitches,
  // A subscription's long-lived token; not in envNames, so it is passed only when asked for.
  signInToken: { env: "CLAUDE_CODE_OAUTH_TOKEN", makeWith: "claude setup-token" },
  signInClues: claudeSignInClues,
  // 2.1.332: .credentials.json, .claude.json and projects/ all live in the config dir.
  accountHome: (home) => ({ env: { CLAUDE_CONFIG_DIR: home }, hostEnv: {} }),
  // 2.1.332 `claude auth login`: the subscription's OAuth (its default, --claudeai) into the config dir.
  signInArgs: ["auth", "login"],
  // 2.1.332: `--resume <id>` reads <config dir>/projects/<cwd slug>/<id>.jsonl; the slug is the cwd's.
  carrySession: (transcript, env) =>
    carryUnder(transcript, env.CLAUDE_CONFIG_DIR || (env.HOME ? `${env.HOME}/.claude` : null), "projects", 3),
  // The trust dialog's "Yes" and the API-key dialog's go into .claude.json (notes: §1).
  dialogRecord: (env) =>
    env.CLAUDE_CONFIG_DIR ? `${env.CLAUDE_CONFIG_DIR}/.claude.json` : `${env.HOME ?? "~"}/.claude.json`,
  hookEvents: CLAUDE_HOOK_EVENTS,
  hookWire: SNAKE_HOOK_WIRE,
  submitEvent: "UserPromptSubmit",
  planLaunch,
  classifyScreen,
  stillScreen,
  preparePrompt,
  interpretEvent,
  parseAnswer: parseClaudeAnswer,
  refusedStructuredCalls: (transcript, promptId) =>
    unloadedToolCalls(transcript, promptId, "StructuredOutput"),
  trackTurn: trackClaudeTurn,
  readConversation: readClaudeConversation,
  maxTurnsHalt: "hook",
  answer: CLAUDE_ANSWERS,
  policy: CLAUDE_POLICY,
  notifyRules: CLAUDE_NOTIFY_RULES,
  // Stop right after the tool that just ran (no Stop hook; the transcript ends with turn_duration).
  haltHooks: (reason) => ({
    PostToolUse: { continue: false, stopReason: reason },
    PostToolUseFailure: { continue: false, stopReason: reason },
  }),
  limits: claudeLimits,
  readTelemetry: readClaudeTelemetry,
  turnTelemetrySettled: claudeTurnSettled,
  costRecord: "the statusLine JSON's cost.total_cost_usd",
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
  // Each event's command names it (hooks/hook.sh never reads the event from the payload).
  const hook = (event: string) => [
    { matcher: "", hooks: [{ type: "command", command: `${input.hookCommand} ${event}` }] },
  ];
  const own: Record<string, unknown> = {
    hooks: Object.fromEntries(CLAUDE_HOOK_EVENTS.map((event) => [event, hook(event)])),
  };
  const bypass = input.unattended === true || input.permissionMode === "bypassPermissions";
  if (bypass) own.skipDangerousModePermissionPrompt = true;
  // 2.1.332 continues a limited turn by itself ~60 s after the reset unless this is false: umbel
  // says which, always (--on-limit; the caller's settings cannot flip it behind umbel's back).
  own.autoContinueAtUsageLimit = input.onLimit === "continue";
  // The statusline JSON is claude's own record of cost, context and usage windows (status, -p).
  if (input.statusLineCommand)
    own.statusLine = { type: "command", command: input.statusLineCommand, padding: 0 };
  const argv: string[] = [input.bin];
  if (input.resumeSessionId) argv.push("--resume", input.resumeSessionId);
  else if (input.continueSession) argv.push("--continue");
  else argv.push("--session-id", input.sessionId);
  argv.push("--settings", JSON.stringify(mergeSettings(own, input.settings)));
  if (input.model) argv.push("--model", input.model);
  // Its TUI starts in auto mode (2.1.332: a classifier approves calls); claude -p in default, where
  // what needs a person is asked, and denied by umbel's hook (policy.ts askDenial) for -p.
  const mode = input.permissionMode ?? (input.nonInteractive ? "default" : undefined);
  if (bypass) argv.push("--permission-mode", "bypassPermissions");
  else if (mode) argv.push("--permission-mode", mode);
  const allowed = [...(input.allowedTools ?? []), ...(input.structuredServer ? [STRUCTURED_TOOL_NAME] : [])];
  if (allowed.length > 0) argv.push("--allowedTools", allowed.join(","));
  // claude -p offers no AskUserQuestion (2.1.332); a non-interactive TUI would ask it of nobody.
  const disallowed = [...(input.disallowedTools ?? []), ...(input.nonInteractive ? ["AskUserQuestion"] : [])];
  argv.push(...launchExtras({ ...input, disallowedTools: disallowed }));
  // Without it every worker runs `npm view @anthropic-ai/claude-code@latest` a few seconds in.
  const env: Record<string, string> = { DISABLE_AUTOUPDATER: "1" };
  // As root, bypass mode refuses to start ("cannot be used with root/sudo privileges") unless IS_SANDBOX=1.
  if (bypass && input.isRoot) env.IS_SANDBOX = "1";
  // Trust for this session only, as `claude -p` has it: 2.1.332 then asks no trust question (nor
  // --add-dir's) and records none (projects[<cwd>].hasTrustDialogAccepted stays false), with hooks
  // and project settings on; measured (docs/providers.md). Commands the worker runs inherit it.
  if (input.sessionTrust) env.CLAUDE_CODE_SANDBOXED = "1";
  return { argv, env };
}
