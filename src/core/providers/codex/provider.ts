import type { PermissionMode } from "../../schemas.ts";
import { normalisePrompt } from "../../worker/prompt.ts";
import type { HomeContext, HomePlan, LaidOutHome } from "../home-types.ts";
import { HOOK_POLICY } from "../hook-policy.ts";
import { SNAKE_HOOK_WIRE } from "../hook-wire.ts";
import {
  type LaunchFlag,
  type LaunchInput,
  type LaunchOptions,
  type LaunchPlan,
  refuseLaunchFlags,
} from "../launch-types.ts";
import { carryUnder } from "../session-carry.ts";
import type { Delivery, HomedProvider } from "../types.ts";
import { CODEX_NOTIFY_RULES, interpretCodexEvent, turnEndSignal } from "./events.ts";
import { CODEX_HOOKS, CODEX_LINKED_FILES, codexProfileName, planCodexHome } from "./home.ts";
import { codexLimits } from "./limits.ts";
import { refuseCodexMcpServers } from "./mcp.ts";
import { CODEX_ANSWERS, classifyCodexScreen, clearCodexComposerKeys, stillCodexScreen } from "./screen.ts";
import { readCodexConversation, trackCodexTurn } from "./stream.ts";
import { readCodexTelemetry } from "./telemetry.ts";
import { findCodexTurnEnd, parseCodexAnswer } from "./transcript.ts";

/**
 * OpenAI Codex (`codex`, @openai/codex), measured on codex-cli 0.171.0 (docs/providers.md,
 * test/real/codex-stub.test.ts). It runs in a umbel-owned CODEX_HOME shared by every codex worker
 * (home.ts), each worker in its own profile `umbel-<worker>`; its SessionStart hook fires at the
 * first prompt, and a failed turn fires no hook at all (the transcript says how it ended).
 */

/**
 * umbel's permission modes as codex flags. Measured (docs/providers.md, Codex): `-a never` keeps the sandbox and
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

/**
 * The optional launch flags codex honours (the rest are usage errors naming codex): the prompts and
 * MCP servers go into the worker's profile (codex/home.ts), `--add-dir` and `--continue` onto argv.
 * `--disallowed-tools` (codex has no per-tool deny list) and `--settings` (claude's settings JSON)
 * have no codex equivalent.
 */
const CODEX_LAUNCH_FLAGS: readonly LaunchFlag[] = [
  "--system-prompt",
  "--append-system-prompt",
  "--add-dir",
  "--mcp-config",
  "--continue",
  "--structured",
];

/**
 * Enter at once after the bracketed paste: codex 0.171.0 took every first Enter after a paste at
 * 0 ms (shared notes: 69 to 20,019 characters; 45 of 45 more here, short, multi-line and 3,000
 * characters, at load ~8-9 on 2 cores, each prompt byte-exact in UserPromptSubmit). Its paste-burst
 * heuristic turns an early Enter into a newline only after typed (send-keys -l) text, never used
 * here. The default's 10 ms was a tenth of a pooled turn's umbel share.
 */
const CODEX_DELIVERY: Delivery = { enterDelayMs: 0, confirmWindowMs: 1000, maxEnters: 4 };

export const codex: HomedProvider = {
  id: "codex",
  displayName: "Codex",
  tested: { version: "0.171.0", npm: "@openai/codex" },
  // A UUID.
  sessionIdPattern: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  tools: {
    command: ["exec_command", "shell", "shell_command", "local_shell"],
    write: [],
    edit: [],
    web: ["web_search"],
    patch: ["apply_patch"],
    read: ["view_image"],
    todo: { name: "update_plan", list: "plan" },
    // exec_command's header: `Process exited with code N` … then `Output:` on a line of its own.
    commandResult(text) {
      const code = /^Process exited with code (-?\d+)$/m.exec(text.split("\nOutput:\n")[0] ?? "");
      if (!code || !text.includes("\nOutput:\n")) return null;
      return {
        output: text.slice(text.indexOf("\nOutput:\n") + "\nOutput:\n".length),
        exitCode: Number(code[1]),
      };
    },
  },
  binEnv: "UMBEL_CODEX_BIN",
  defaultBin: "codex",
  // CODEX_HOME is umbel's (planLaunch sets it); the user's never reaches a worker.
  envNames: ["CODEX_CA_CERTIFICATE"],
  // The login is auth.json in the user's CODEX_HOME (spawn links it into umbel's home).
  signInClues: (env) => ({ files: [`${userCodexHome(env)}/auth.json`], env: [] }),
  // A key in the environment switches a ChatGPT-subscription login to API billing.
  explicitOnlyEnv: ["OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_ACCESS_TOKEN"],
  // Without auth.json the TUI shows its login screen even with OPENAI_API_KEY or CODEX_API_KEY set
  // (0.171.0, measured: docs/providers.md); `login --with-api-key` stores the key (spawn links it in).
  storeApiKey: (name) => `printf %s "$${name}" | codex login --with-api-key`,
  hookEvents: CODEX_HOOKS.map((hook) => hook.event),
  submitEvent: "UserPromptSubmit",
  delivery: CODEX_DELIVERY,
  // claude's field names (0.171.0); `turn_id` is codex's own.
  hookWire: SNAKE_HOOK_WIRE,
  planLaunch: planCodexLaunch,
  classifyScreen: classifyCodexScreen,
  stillScreen: stillCodexScreen,
  preparePrompt: prepareCodexPrompt,
  interpretEvent: interpretCodexEvent,
  parseAnswer: parseCodexAnswer,
  trackTurn: trackCodexTurn,
  readConversation: readCodexConversation,
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
  home: {
    reads: (context) => {
      const user = userCodexHome(context.hostEnv);
      return [`${user}/config.toml`, ...CODEX_LINKED_FILES.map((name) => `${user}/${name}`)];
    },
    plan: planCodexHomeEntries,
  },
  sessionStartAtLaunch: false,
  screenShowsStreaming: false,
  answer: CODEX_ANSWERS,
  policy: HOOK_POLICY,
  notifyRules: CODEX_NOTIFY_RULES,
  clearInputKeys: clearCodexComposerKeys,
  // 0.171.0: auth.json (and config.toml) of the account's CODEX_HOME, linked into its own managed home.
  accountHome: (home) => ({ env: {}, hostEnv: { CODEX_HOME: home } }),
  // 0.171.0 `codex login`: ChatGPT sign-in, written to $CODEX_HOME/auth.json.
  signInArgs: ["login"],
  // 0.171.0: `codex resume <id>` finds sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl in its CODEX_HOME.
  carrySession: (transcript, env) => carryUnder(transcript, env.CODEX_HOME ?? null, "sessions", 5),
  checkLaunchOptions: (options: LaunchOptions) =>
    refuseLaunchFlags("codex", options, CODEX_LAUNCH_FLAGS) ??
    unsupportedLaunchOption(options) ??
    refuseCodexMcpServers(options.mcpServers),
  transcriptTurnEnd: (transcript, promptId) => turnEndSignal(findCodexTurnEnd(transcript, promptId)),
  limits: codexLimits,
  readTelemetry: readCodexTelemetry,
};

/** The user's CODEX_HOME: `$CODEX_HOME`, else `~/.codex` (read from umbel's env, never passed on). */
function userCodexHome(env: Readonly<Record<string, string | undefined>>): string {
  return (env.CODEX_HOME || `${env.HOME ?? ""}/.codex`).replace(/\/+$/, "");
}

/**
 * The managed home the workers of one sign-in share: `codex-home` for the default, `codex-home-<account>`
 * for an account (its auth.json link and config.toml are that account home's: core/accounts/launch.ts).
 */
function codexManagedHome(context: Pick<HomeContext, "stateRoot" | "launch">): string {
  const account = context.launch.account;
  return `${context.stateRoot}/codex-home${account === undefined ? "" : `-${account}`}`;
}

/** The shared `$UMBEL_HOME/codex-home` with this worker's profile; links only to files that exist. */
function planCodexHomeEntries(
  context: HomeContext,
  files: Readonly<Record<string, string | null>>,
): HomePlan {
  const userHome = userCodexHome(context.hostEnv);
  const home = codexManagedHome(context);
  const plan = planCodexHome({
    home,
    userHome,
    userConfig: files[`${userHome}/config.toml`] ?? null,
    worker: context.worker,
    cwd: context.cwd,
    hookCommand: context.hookCommand,
    launch: context.launch,
    envNames: context.workerEnvNames,
  });
  return {
    home,
    entries: [
      ...plan.dirs.map((path) => ({ kind: "dir" as const, path, mode: 0o700 })),
      ...plan.files.map((file) => ({ kind: "file" as const, ...file })),
      ...plan.links.map((link) => ({ kind: "link" as const, ...link })),
    ],
    removeOnKill: plan.removeOnKill,
  };
}

/** argv and env: the worker's profile in the shared home, which the engine laid out from `home.plan`. */
export function planCodexLaunch(input: LaunchInput, home: LaidOutHome): LaunchPlan {
  const argv: string[] = [input.bin];
  if (input.resumeSessionId) argv.push("resume", input.resumeSessionId);
  // Measured: --last takes the newest session recorded in this cwd (`--all` lifts that filter).
  else if (input.continueSession) argv.push("resume", "--last");
  // The default daemon copies ~424 MB into every fresh CODEX_HOME and outlives /quit.
  argv.push("--no-daemon", "-p", codexProfileName(home.worker));
  if (input.model) argv.push("-m", input.model);
  argv.push(...codexPermissionArgs(input));
  for (const dir of input.addDirs ?? []) argv.push("--add-dir", dir);
  return { argv, env: { CODEX_HOME: home.path } };
}

/**
 * The permission flags. Non-interactive (umbel exec, -p) is codex exec's own default, measured on
 * 0.171.0: `approval: never` (nothing is asked: a sandbox refusal, an escalation or a patch outside
 * the sandbox goes back to the model as an error) in a `read-only` sandbox unless a mode names
 * another. `--approve-for-me` keeps its on-request approvals (codex exec's too): its guardian model
 * decides them, never a person.
 */
function codexPermissionArgs(
  input: Pick<LaunchInput, "unattended" | "permissionMode" | "nonInteractive">,
): string[] {
  const mode: PermissionMode = input.unattended
    ? "bypassPermissions"
    : (input.permissionMode ?? (input.nonInteractive ? "plan" : "default"));
  const args = [...(CODEX_PERMISSION_MODES[mode] ?? [])];
  const asks = mode !== "bypassPermissions" && mode !== "auto" && mode !== "dontAsk";
  if (input.nonInteractive && asks) args.push("-a", "never");
  return args;
}

/** A usage error for options codex cannot honour, or null (checked before any I/O). */
export function unsupportedLaunchOption(
  input: Pick<
    LaunchOptions,
    "allowedTools" | "permissionMode" | "unattended" | "nonInteractive" | "launchFlags"
  >,
): string | null {
  if (input.allowedTools && input.allowedTools.length > 0)
    return "codex has no per-tool allowlist: --allowed-tools is not supported with --provider codex";
  if (input.permissionMode && CODEX_PERMISSION_MODES[input.permissionMode] === undefined) {
    const known = Object.keys(CODEX_PERMISSION_MODES).join(", ");
    return `codex has no permission mode "${input.permissionMode}" (codex supports: ${known})`;
  }
  // Measured on 0.171.0: "Error adding directories: Ignoring --add-dir … because the effective
  // permissions do not allow additional writable roots", and the TUI exits 1 (codex exec only lists
  // the folder as a read-only root).
  if (input.launchFlags?.includes("--add-dir") && codexPermissionArgs(input).includes("read-only"))
    return "codex's TUI refuses --add-dir in its read-only sandbox (codex exec's default, and -p's): give --permission-mode default (umbel exec: -s workspace-write) to add the folder as a writable root";
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
