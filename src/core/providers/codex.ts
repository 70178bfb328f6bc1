import { normalisePrompt } from "../prompt.ts";
import type { PermissionMode } from "../schemas.ts";
import { CODEX_HOOKS, CODEX_LINKED_FILES, planCodexHome } from "./codex-home.ts";
import { refuseCodexMcpServers } from "./codex-mcp.ts";
import { classifyCodexScreen, clearCodexComposerKeys, stillCodexScreen } from "./codex-screen.ts";
import { trackCodexTurn } from "./codex-stream.ts";
import { type CodexTurnEnd, findCodexTurnEnd, parseCodexAnswer } from "./codex-transcript.ts";
import type {
  HomeContext,
  HomePlan,
  HookEvent,
  LaunchInput,
  LaunchOptions,
  LaunchPlan,
  Provider,
  TurnSignal,
} from "./types.ts";
import { type LaunchFlag, refuseLaunchFlags } from "./types.ts";

/*
 * OpenAI Codex (`codex`, @openai/codex), measured on codex-cli 0.171.0 (../shared/notes/codex.md,
 * test/real/codex-stub.test.ts). Wired through the optional members of the Provider contract
 * (types.ts): 1-4, 6-10 are done (homeReads/planHome, sessionStartAtLaunch, the "interrupted"
 * signal, transcriptTurnEnd, checkLaunchOptions, clearInputKeys, screenShowsStreaming); 11 holds
 * because codex's maxTurnsHalt is "interrupt" (the default); 12 is not handled (the lock screen
 * fails the spawn). The original list of what the engine needed:
 *
 * 1. schemas.ts `ProviderId = z.enum(["claude", "codex"])`; registry.ts lists `codex`. Until then
 *    `id` is a cast.
 * 2. A provider-owned home, planned before launch:
 *      Provider.planHome?(input: CodexHomeInput): CodexHomePlan            // codex-home.ts
 *      CodexHomeInput = { home; userHome; userConfig: string | null; worker; cwd; hookCommand }
 *      CodexHomePlan  = { dirs; files: {path, content, mode}[]; links: {path, target}[];
 *                         profile; removeOnKill }
 *    `home` = realpath of `$UMBEL_HOME/codex-home` (ONE home for all codex workers: `codex resume`
 *    finds every rollout, and codex's own auth lock serialises token refreshes); `userHome` =
 *    `$CODEX_HOME` or `~/.codex` (read from umbel's env, never passed on); `userConfig` = the text
 *    of `<userHome>/config.toml` or null; `cwd` = realpath. spawn makes `dirs` (0700), writes
 *    `files` atomically with their mode, links each `links` entry whose target exists; kill
 *    removes `removeOnKill` (the worker's profile).
 * 3. `LaunchInput` gains `worker: string` and `providerHome?: string` (the `home` above); planLaunch
 *    makes them `-p umbel-<worker>` and env `CODEX_HOME=<home>`. `sessionId` is unused: codex
 *    picks its own thread id (no flag) and reports it in SessionStart.
 * 4. `Provider.sessionStartAtLaunch: boolean` (claude true, codex false): codex fires SessionStart
 *    at the FIRST PROMPT, so spawn's "ready" is the screen alone (status line under the composer).
 * 5. `promptId` carries codex's `turn_id` (UserPromptSubmit, Stop, Interrupt). A prompt sent
 *    mid-turn steers the SAME turn (UserPromptSubmit again, same id; one Stop).
 * 6. `TurnSignal |= { kind: "interrupted"; promptId: string | null }` (Interrupt hook, transcript
 *    `turn_aborted`: Esc, C-c, or an approval denied with Esc/n). `interpretCodexEvent` returns
 *    it; the contract's `interpretEvent` maps it to `failure` ("interrupted") until then.
 * 7. End of turn from the transcript: a failed turn (HTTP error, broken stream, idle timeout) fires
 *    NO hook, so wait must also follow the transcript (`transcript_path` of the latest
 *    SessionStart/UserPromptSubmit; watch its directory or poll it):
 *      Provider.transcriptTurnEnd?(transcript: string, turnId: string | null): CodexTurnEnd
 *    (= `findCodexTurnEnd`; `turnEndSignal` turns it into a signal: failed → failure with the
 *    transcript's message → provider-error 122). A server that never sends headers hangs codex
 *    for good: only umbel's deadline ends that turn. `parseAnswer` fits as is.
 * 8. Launch options per provider: `Provider.checkLaunchOptions?(o: { allowedTools?; permissionMode? }):
 *    string | null` (= `unsupportedLaunchOption`: --allowed-tools, `manual`, `acceptEdits` → usage
 *    error, exit 2, naming codex); unattended → `--dangerously-bypass-approvals-and-sandbox`.
 * 9. `Provider.clearInputKeys?(screen: string): string[]` (= `clearCodexComposerKeys`): send's `C-u`
 *    kills only to the start of the current line. Never C-c: on an empty composer it quits codex.
 * 10. `Provider.screenShowsStreaming: boolean` (codex false): no busy marker while text streams,
 *    so status/idle must come from hooks and the transcript. `findCodexScreenError` gives the
 *    `■ …` line as evidence for provider-error.
 * 11. hooks/hook.sh prints events/halt-<Event>.json while -p --max-turns holds a turn; codex
 *    takes PostToolUse's `{"continue":false}` as "replace the tool's output" and goes on
 *    (measured), so its turn is interrupted and PreToolUse denies any call meanwhile (haltHooks).
 * 12. Resuming a thread that a live worker holds shows a lock screen (dialog "thread-locked",
 *    fatal): kill (or refuse) the holder before `--resume`.
 */

export type CodexLaunchInput = LaunchInput & {
  readonly worker: string;
  /** The managed CODEX_HOME (realpath); see codex-home.ts. */
  readonly providerHome: string;
};

/**
 * umbel's permission modes as codex flags. Measured (notes §6): `-a never` keeps the sandbox and
 * rejects escalations to the model; `--approve-for-me` sends escalations to a guardian model
 * request; `-s read-only` fails writes and asks before patches. manual and acceptEdits have no
 * codex equivalent (0.171.0 offers only `-a on-request` and `-a never`).
 */
export const CODEX_PERMISSION_MODES: Partial<Record<PermissionMode, readonly string[]>> = {
  default: [],
  plan: ["-s", "read-only"],
  auto: ["--approve-for-me"],
  dontAsk: ["-a", "never"],
  bypassPermissions: ["--dangerously-bypass-approvals-and-sandbox"],
};

export type CodexSignal = TurnSignal;

/**
 * The optional launch flags codex honours (the rest are usage errors naming codex): the prompts and
 * MCP servers go into the worker's profile (codex-home.ts), `--add-dir` and `--continue` onto argv.
 * `--disallowed-tools` (codex has no per-tool deny list) and `--settings` (claude's settings JSON)
 * have no codex equivalent.
 */
const CODEX_LAUNCH_FLAGS: readonly LaunchFlag[] = [
  "--system-prompt",
  "--append-system-prompt",
  "--add-dir",
  "--mcp-config",
  "--continue",
];

export const codex: Provider = {
  id: "codex",
  displayName: "Codex",
  binEnv: "UMBEL_CODEX_BIN",
  defaultBin: "codex",
  // CODEX_HOME is umbel's (planLaunch sets it); the user's never reaches a worker.
  envNames: ["CODEX_CA_CERTIFICATE"],
  // A key in the environment switches a ChatGPT-subscription login to API billing.
  explicitOnlyEnv: ["OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_ACCESS_TOKEN"],
  hookEvents: CODEX_HOOKS.map((hook) => hook.event),
  submitEvent: "UserPromptSubmit",
  planLaunch: (input) => planCodexLaunch(input as CodexLaunchInput),
  classifyScreen: classifyCodexScreen,
  stillScreen: stillCodexScreen,
  preparePrompt: prepareCodexPrompt,
  interpretEvent: interpretCodexEvent,
  parseAnswer: parseCodexAnswer,
  trackTurn: trackCodexTurn,
  // --max-turns interrupts a codex turn (the default); meanwhile PreToolUse refuses every call, so a
  // response already on its way runs no tool ("Blocked by hook", measured on 0.171.0).
  haltHooks: (reason) => ({
    PreToolUse: {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: reason,
      },
    },
  }),
  homeReads: (context) => {
    const user = userCodexHome(context.hostEnv);
    return [`${user}/config.toml`, ...CODEX_LINKED_FILES.map((name) => `${user}/${name}`)];
  },
  planHome: planCodexHomeEntries,
  sessionStartAtLaunch: false,
  screenShowsStreaming: false,
  clearInputKeys: clearCodexComposerKeys,
  checkLaunchOptions: (options: LaunchOptions) =>
    refuseLaunchFlags("codex", options, CODEX_LAUNCH_FLAGS) ??
    unsupportedLaunchOption(options) ??
    refuseCodexMcpServers(options.mcpServers),
  transcriptTurnEnd: (transcript, promptId) => turnEndSignal(findCodexTurnEnd(transcript, promptId)),
};

/** The user's CODEX_HOME: `$CODEX_HOME`, else `~/.codex` (read from umbel's env, never passed on). */
function userCodexHome(env: Readonly<Record<string, string | undefined>>): string {
  return (env.CODEX_HOME || `${env.HOME ?? ""}/.codex`).replace(/\/+$/, "");
}

/** The shared `$UMBEL_HOME/codex-home` with this worker's profile; links only to files that exist. */
function planCodexHomeEntries(
  context: HomeContext,
  files: Readonly<Record<string, string | null>>,
): HomePlan {
  const userHome = userCodexHome(context.hostEnv);
  const plan = planCodexHome({
    home: `${context.stateRoot}/codex-home`,
    userHome,
    userConfig: files[`${userHome}/config.toml`] ?? null,
    worker: context.worker,
    cwd: context.cwd,
    hookCommand: context.hookCommand,
    launch: context.launch,
    envNames: context.workerEnvNames,
  });
  return {
    home: `${context.stateRoot}/codex-home`,
    entries: [
      ...plan.dirs.map((path) => ({ kind: "dir" as const, path, mode: 0o700 })),
      ...plan.files.map((file) => ({ kind: "file" as const, ...file })),
      ...plan.links.map((link) => ({ kind: "link" as const, ...link })),
    ],
    removeOnKill: plan.removeOnKill,
    warnings: plan.warnings,
  };
}

export function planCodexLaunch(input: CodexLaunchInput): LaunchPlan {
  if (!input.worker || !input.providerHome) {
    throw new Error("codex needs LaunchInput.worker and .providerHome (see the top of codex.ts)");
  }
  const argv: string[] = [input.bin];
  if (input.resumeSessionId) argv.push("resume", input.resumeSessionId);
  // Measured: --last takes the newest session recorded in this cwd (`--all` lifts that filter).
  else if (input.continueSession) argv.push("resume", "--last");
  // The default daemon copies ~424 MB into every fresh CODEX_HOME and outlives /quit.
  argv.push("--no-daemon", "-p", `umbel-${input.worker}`);
  if (input.model) argv.push("-m", input.model);
  const mode: PermissionMode | undefined = input.unattended ? "bypassPermissions" : input.permissionMode;
  argv.push(...(CODEX_PERMISSION_MODES[mode ?? "default"] ?? []));
  for (const dir of input.addDirs ?? []) argv.push("--add-dir", dir);
  return { argv, env: { CODEX_HOME: input.providerHome } };
}

/** A usage error for options codex cannot honour, or null (checked before any I/O). */
export function unsupportedLaunchOption(input: {
  allowedTools?: readonly string[] | undefined;
  permissionMode?: PermissionMode | undefined;
  unattended?: boolean | undefined;
}): string | null {
  if (input.allowedTools && input.allowedTools.length > 0)
    return "codex has no per-tool allowlist: --allowed-tools is not supported with --provider codex";
  if (input.permissionMode && CODEX_PERMISSION_MODES[input.permissionMode] === undefined) {
    const known = Object.keys(CODEX_PERMISSION_MODES).join(", ");
    return `codex has no permission mode "${input.permissionMode}" (codex supports: ${known})`;
  }
  return null;
}

/**
 * The text to paste. A leading `/` runs a slash command (or, unknown, stays in the composer) and a
 * leading `!` runs a local shell command, even pasted; a leading space makes both plain text, and
 * codex trims it before the model sees the prompt. A trailing `@word` opens the file-mention popup,
 * so Enter would accept a completion instead of submitting: a trailing space prevents it.
 */
export function prepareCodexPrompt(prompt: string): string {
  let text = normalisePrompt(prompt);
  if (/^[/!]/.test(text)) text = ` ${text}`;
  if (/(^|\s)@\S*$/.test(text)) text = `${text} `;
  return text;
}

export function interpretCodexEvent(event: HookEvent): CodexSignal {
  const p = event.payload;
  const str = (key: string): string | null => (typeof p[key] === "string" ? (p[key] as string) : null);
  switch (event.name) {
    case "SessionStart":
      return { kind: "session-start", sessionId: str("session_id"), transcriptPath: str("transcript_path") };
    case "UserPromptSubmit":
      return { kind: "submitted", promptId: str("turn_id"), prompt: str("prompt"), human: true };
    case "Stop":
      return {
        kind: "stop",
        promptId: str("turn_id"),
        message: str("last_assistant_message"),
        backgroundTasks: [],
      };
    case "Interrupt":
      return { kind: "interrupted", promptId: str("turn_id") };
    case "PermissionRequest":
      return { kind: "input", text: describeTool(str("tool_name"), p.tool_input), detail: "permission" };
    case "PreToolUse":
    case "PostToolUse":
      return { kind: "progress" };
    case "SessionEnd":
      return { kind: "session-end", reason: str("reason") ?? "" };
    default:
      return { kind: "ignore" };
  }
}

/** What the transcript says about the turn, as a signal (null while the turn runs). */
export function turnEndSignal(end: CodexTurnEnd): CodexSignal | null {
  switch (end.status) {
    case "running":
      return null;
    case "complete":
      return { kind: "stop", promptId: end.turnId, message: end.message, backgroundTasks: [] };
    case "failed":
      return { kind: "failure", promptId: end.turnId, error: end.errorKind, message: end.error };
    case "aborted":
      return { kind: "interrupted", promptId: end.turnId };
  }
}

/** `Bash: touch x (Need to touch a file outside the sandbox?)`, `apply_patch: *** Begin Patch…`. */
function describeTool(name: string | null, input: unknown): string {
  const tool = name ?? "tool";
  if (!input || typeof input !== "object") return tool;
  const i = input as Record<string, unknown>;
  if (typeof i.command !== "string") return `${tool}: ${JSON.stringify(input)}`;
  const why = typeof i.description === "string" ? ` (${i.description})` : "";
  return `${tool}: ${i.command}${why}`;
}
