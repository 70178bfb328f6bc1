import { UsageError } from "../../errors.ts";
import type { BillingRoute } from "../../limits/billing.ts";
import { normalisePrompt } from "../../worker/prompt.ts";
import type { HomeContext, HomePlan, LaidOutHome } from "../home-types.ts";
import { SNAKE_HOOK_WIRE } from "../hook-wire.ts";
import {
  type LaunchFlag,
  type LaunchInput,
  type LaunchOptions,
  type LaunchPlan,
  refuseLaunchFlags,
} from "../launch-types.ts";
import { carryUnder } from "../session-carry.ts";
import type { HomedProvider, TurnSignal } from "../types.ts";
import { assessRetryStall, GEMINI_NOTIFY_RULES, interpretGeminiEvent } from "./events.ts";
import {
  GEMINI_AUTH_FILES,
  GEMINI_HOOK_EVENTS,
  GEMINI_MARKER_EVENTS,
  planGeminiHome,
  userGeminiDir,
} from "./home.ts";
import { geminiMcpProblem, geminiSystemPromptPath } from "./launch.ts";
import { geminiLimits } from "./limits.ts";
import { GEMINI_APPROVAL_MODES } from "./non-interactive.ts";
import { GEMINI_POLICY } from "./policy.ts";
import { classifyGeminiScreen, GEMINI_ANSWERS, stillGeminiScreen } from "./screen.ts";
import { geminiSignInClues } from "./sign-in.ts";
import { readGeminiConversation, trackGeminiTurn } from "./stream.ts";
import { readGeminiTelemetry } from "./telemetry.ts";
import { parseGeminiAnswer } from "./transcript.ts";

/**
 * Google Gemini CLI (`gemini`, @google/gemini-cli), measured on 0.61.0 (docs/providers.md). It runs
 * in its own GEMINI_CLI_HOME in the worker's session directory (home.ts), where its hooks live; its
 * AfterAgent hook ends every turn alike, so the transcript says whether the turn answered, failed
 * or was cancelled, and retries that never end are found by assessStall.
 */

/**
 * Paste → Enter pause, how long to wait for BeforeAgent, and how many Enters at most. Measured on 2
 * cores at load 6-9: an Enter 50 ms after the paste was lost 4 of 4 times, at 150 ms 5 of 8, at
 * 300 ms 1 of 8, at 600 ms 0 of 8 (yet 2 of ~10 ad-hoc sends at 600 ms still needed a second Enter);
 * BeforeAgent came 130-450 ms after the Enter that took. A lost Enter leaves the text in the box.
 */
export const GEMINI_DELIVERY = { enterDelayMs: 400, confirmWindowMs: 1500, maxEnters: 4 } as const;

/** One Escape cancels a turn (streaming or retrying): "Request cancelled.", AfterAgent. */
const GEMINI_INTERRUPT_KEYS = ["Escape"] as const;

/**
 * The optional launch flags gemini honours (gemini/launch.ts says how); the rest are usage errors
 * naming gemini. Not --settings (claude's settings mean nothing to gemini) nor --continue (gemini's
 * `--resume latest` looks only in the worker's own home, which is new for every worker).
 */
export const GEMINI_LAUNCH_FLAGS: readonly LaunchFlag[] = [
  "--system-prompt",
  "--append-system-prompt",
  "--add-dir",
  "--mcp-config",
  "--disallowed-tools",
  "--structured",
];

export const gemini: HomedProvider = {
  id: "gemini",
  displayName: "Gemini CLI",
  tested: { version: "0.61.0", npm: "@google/gemini-cli" },
  // A UUID.
  sessionIdPattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  tools: {
    command: ["run_shell_command"],
    write: ["write_file"],
    edit: ["replace"],
    web: ["google_web_search"],
    // A server name with `_` splits early.
    mcpName: /^mcp_([^_]+)_(.+)$/,
    read: ["read_file", "read_many_files"],
    search: ["glob", "search_file_content", "grep_search", "list_directory"],
    fetch: ["web_fetch"],
    todo: { name: "write_todos", list: "todos" },
    // run_shell_command's `Output: …` (`(empty)` for none), then `Exit Code: N` when it failed.
    commandResult(text, isError) {
      const out =
        /(?:^|\n)Output: ([\s\S]*?)(?:\n(?:Error|Exit Code|Signal|Background PIDs|Process Group PGID):|$)/.exec(
          text,
        );
      if (!out) return null;
      const code = /\nExit Code: (-?\d+)/.exec(text);
      const output = out[1] === "(empty)" ? "" : (out[1] ?? "");
      return { output, exitCode: code ? Number(code[1]) : isError ? 1 : 0 };
    },
  },
  binEnv: "UMBEL_GEMINI_BIN",
  defaultBin: "gemini",
  // One by one: the auth methods' variables (API key, Vertex AI, Code Assist, ADC) and the endpoint.
  envNames: [
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "GOOGLE_GEMINI_BASE_URL",
    "GOOGLE_VERTEX_BASE_URL",
    "GOOGLE_GENAI_USE_VERTEXAI",
    "GOOGLE_GENAI_USE_GCA",
    "GOOGLE_GENAI_API_VERSION",
    "GOOGLE_CLOUD_PROJECT",
    "GOOGLE_CLOUD_PROJECT_ID",
    "GOOGLE_CLOUD_LOCATION",
    "GOOGLE_CLOUD_QUOTA_PROJECT",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GEMINI_API_KEY_AUTH_MECHANISM",
    "GEMINI_FORCE_ENCRYPTED_FILE_STORAGE",
    "GEMINI_FORCE_FILE_STORAGE",
    "GEMINI_CLI_USE_COMPUTE_ADC",
    "CLOUD_SHELL",
    "NO_BROWSER",
  ],
  // Nothing is explicit-only: settings.json's selectedType, not an inherited key, picks the billing.
  explicitOnlyEnv: [],
  signInClues: geminiSignInClues,
  hookEvents: GEMINI_HOOK_EVENTS,
  submitEvent: "BeforeAgent",
  // claude's field names (0.61.0); so do the bare markers its home's own hooks write
  // (`{"hook_event_name":"BeforeModel"}`, no session id: home.ts).
  hookWire: SNAKE_HOOK_WIRE,
  planLaunch: planGeminiLaunch,
  classifyScreen: classifyGeminiScreen,
  stillScreen: stillGeminiScreen,
  preparePrompt: prepareGeminiPrompt,
  interpretEvent: interpretGeminiEvent,
  parseAnswer: parseGeminiAnswer,
  trackTurn: trackGeminiTurn,
  readConversation: readGeminiConversation,
  maxTurnsHalt: "hook",
  // 0.61.0: the agent stops after that tool ("Agent execution stopped: <reason>"), no AfterAgent.
  haltHooks: (reason) => ({ AfterTool: { continue: false, stopReason: reason } }),
  // 0.61.0: GEMINI_CLI_HOME=<home> keeps the sign-in in <home>/.gemini; the worker's own home links it.
  accountHome: (home) => ({ env: {}, hostEnv: { GEMINI_CLI_HOME: home } }),
  // 0.61.0 has no login command: the TUI's auth dialog on its first start (then /quit).
  signInArgs: [],
  // The chats are in the worker's own GEMINI_CLI_HOME (.gemini/tmp/<slug>/chats/session-….jsonl),
  // which an account only links its sign-in into: a relaunch on another account finds them in place.
  carrySession: (transcript, env) => carryUnder(transcript, env.GEMINI_CLI_HOME ?? null, ".gemini", 5),
  home: {
    reads: (context) => {
      const dir = userGeminiDir(context.hostEnv);
      return dir === null
        ? []
        : [`${dir}/settings.json`, `${dir}/GEMINI.md`, ...GEMINI_AUTH_FILES.map((name) => `${dir}/${name}`)];
    },
    plan: planGeminiHomeEntries,
  },
  delivery: GEMINI_DELIVERY,
  checkLaunchOptions: (options: LaunchOptions) =>
    refuseLaunchFlags("gemini", options, GEMINI_LAUNCH_FLAGS) ?? geminiLaunchProblems(options)[0] ?? null,
  transcriptTurnEnd: geminiTurnEnd,
  assessStall: assessRetryStall,
  interruptKeys: GEMINI_INTERRUPT_KEYS,
  markerEvents: GEMINI_MARKER_EVENTS,
  // Each worker's chats are in its own GEMINI_CLI_HOME (removed with its tombstone).
  conversationsPerWorker: true,
  answer: GEMINI_ANSWERS,
  policy: GEMINI_POLICY,
  notifyRules: GEMINI_NOTIFY_RULES,
  limits: geminiLimits,
  readTelemetry: readGeminiTelemetry,
};

/**
 * The worker's own GEMINI_CLI_HOME in its session directory (removed with the tombstone). kill
 * removes the credential links at once; the transcript stays for `read` until --purge / prune.
 */
function planGeminiHomeEntries(
  context: HomeContext,
  files: Readonly<Record<string, string | null>>,
): HomePlan {
  const home = `${context.sessionDir}/gemini`;
  const userDir = userGeminiDir(context.hostEnv);
  const plan = planGeminiHome({
    home,
    userDir,
    userSettings: userDir === null ? null : (files[`${userDir}/settings.json`] ?? null),
    userFiles: GEMINI_AUTH_FILES.filter((name) => userDir !== null && files[`${userDir}/${name}`] != null),
    userMemory: userDir === null ? null : (files[`${userDir}/GEMINI.md`] ?? null),
    hookCommand: context.hookCommand,
    eventsLog: context.eventsLog,
    envNames: context.workerEnvNames,
    launch: context.launch,
  });
  const links = plan.entries.flatMap((entry) => (entry.kind === "link" ? [entry.path] : []));
  const billing = geminiBilling(plan.selectedType);
  return { home, entries: plan.entries, removeOnKill: links, ...(billing ? { billing } : {}) };
}

/** gemini bills by its auth method, not by which variables are set (0.61.0 `security.auth.selectedType`). */
function geminiBilling(selectedType: string | null): BillingRoute | null {
  const via = [`settings security.auth.selectedType ${selectedType}`];
  if (selectedType === "oauth-personal" || selectedType === "login-with-google")
    return { route: "subscription", via };
  if (selectedType === "gemini-api-key") return { route: "api-key", via };
  if (
    selectedType === "vertex-ai" ||
    selectedType === "compute-default-credentials" ||
    selectedType === "cloud-shell"
  )
    return { route: "cloud", via };
  return null;
}

/** After AfterAgent (a plain stop for answers, errors and Escapes alike), the transcript says which. */
export function geminiTurnEnd(transcript: string, promptId: string | null): TurnSignal | null {
  const answer = parseGeminiAnswer(transcript, promptId);
  switch (answer.status) {
    case "failed":
      return { kind: "failure", promptId, error: "api_error", message: answer.error };
    case "cancelled":
      return { kind: "interrupted", promptId, detail: "cancelled" };
    case "halted":
      return { kind: "interrupted", promptId, detail: "halted" };
    case "answered":
      return { kind: "stop", promptId, message: answer.text, backgroundTasks: [] };
    default:
      return null;
  }
}

/**
 * argv and fixed env, in the home the engine laid out from `home.plan`. GEMINI_CLI_TRUST_WORKSPACE
 * trusts the cwd (hooks, user-level ones included, are silently off in an untrusted folder; the
 * `--skip-trust` flag comes too late for project settings). GEMINI_CLI_NO_RELAUNCH keeps gemini in
 * one process: its relaunching parent ignores SIGHUP/SIGTERM/SIGINT and outlives the pane.
 * --system-prompt's text is a file of the home (planGeminiHome writes it): GEMINI_SYSTEM_MD.
 */
export function planGeminiLaunch(input: LaunchInput, home: LaidOutHome): LaunchPlan {
  const argv: string[] = [input.bin];
  if (input.resumeSessionId) argv.push("--resume", input.resumeSessionId);
  else argv.push("--session-id", input.sessionId);
  if (input.model) argv.push("--model", input.model);
  const mode = input.unattended
    ? "yolo"
    : input.permissionMode && GEMINI_APPROVAL_MODES[input.permissionMode];
  if (mode) argv.push("--approval-mode", mode);
  for (const tool of input.allowedTools ?? []) argv.push("--allowed-tools", tool);
  for (const dir of input.addDirs ?? []) argv.push("--include-directories", includeDirectory(dir));
  const env: Record<string, string> = {
    GEMINI_CLI_HOME: home.path,
    GEMINI_CLI_TRUST_WORKSPACE: "true",
    GEMINI_CLI_NO_RELAUNCH: "true",
  };
  if (input.systemPrompt !== undefined) env.GEMINI_SYSTEM_MD = geminiSystemPromptPath(home.path);
  return { argv, env };
}

/**
 * --add-dir as `--include-directories`: gemini splits its values at commas and trims them (0.61.0
 * coerceCommaSeparated), so such a path would name other directories. Its TUI then asks "Do you
 * trust the following folders being added to this workspace?"; spawn answers Yes (this session
 * only) like claude's own --add-dir question (gemini/screen.ts).
 */
function includeDirectory(dir: string): string {
  if (dir.includes(",") || dir.trim() !== dir) {
    throw new UsageError(
      `--add-dir ${JSON.stringify(dir)}: gemini splits directories at commas and trims spaces, so it cannot take this path`,
      { provider: "gemini", dir },
    );
  }
  return dir;
}

/** Usage errors for a launch gemini cannot honour (permission modes, MCP servers); empty when it can. */
export function geminiLaunchProblems(input: Pick<LaunchOptions, "permissionMode" | "mcpServers">): string[] {
  // (unattended maps to --approval-mode yolo; --allowed-tools to gemini's own --allowed-tools)
  const problems: string[] = [];
  const mode = input.permissionMode;
  if (mode !== undefined && GEMINI_APPROVAL_MODES[mode] === undefined) {
    const known = Object.keys(GEMINI_APPROVAL_MODES).join(", ");
    problems.push(`--permission-mode ${mode} is not supported by gemini (use one of ${known})`);
  }
  const mcp = geminiMcpProblem(input.mcpServers);
  if (mcp) problems.push(mcp);
  return problems;
}

/**
 * The text umbel pastes. Measured on 0.61.0: a pasted prompt keeps `?`, `!` and `@` (typed keys do
 * not: `?` opens help and `!` switches to shell mode); gemini trims the text and runs it as a slash
 * command when it then starts with `/` (not `//`, `/*`), leading spaces or not, and strips U+200B,
 * U+FEFF, C1 and bidi controls. So:
 * - a leading U+2060 WORD JOINER before such a `/` (not trimmed, not stripped, invisible; the model
 *   sees it) keeps `/about is a path?` a prompt;
 * - a trailing space (trimmed away at submit) keeps the cursor off the last token: after `@path` an
 *   Enter would accept a completion, after `\` it would insert a newline.
 */
export function prepareGeminiPrompt(prompt: string): string {
  const text = normalisePrompt(prompt);
  const lead = /^\s*\/(?![/*])/.test(text) ? "\u2060" : "";
  return `${lead}${text} `;
}
