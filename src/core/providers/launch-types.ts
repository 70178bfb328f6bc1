import type { StructuredServer } from "../guard/tool.ts";
import type { OnLimit } from "../limits/limits.ts";
import type { PermissionMode } from "../schemas.ts";

/**
 * What the engine asks of a provider's launch: its input, its plan, and the options it refuses. The
 * spawn's own part of each is its LaunchRequest (core/spawn/request.ts), made once from SpawnInput.
 */

/**
 * What a spawn asks of its provider's CLI, in the providers' terms: the one place SpawnInput's fields
 * are renamed and mapped for them. The pre-I/O refusal check (LaunchOptions), the launch planner's
 * input (LaunchInput) and a provider home's flags (HomeLaunch) are parts of it (below, and
 * home-types.ts), so a new spawn option is a SpawnInput field, its field here and its line in
 * `launchRequest` (core/spawn/request.ts), then the providers that honour it (CONTRIBUTING.md,
 * "Add a spawn option").
 */
export type LaunchRequest = {
  readonly model?: string | undefined;
  readonly permissionMode?: PermissionMode | undefined;
  /** The tools allowed without asking, with the --allow rules the CLI answers itself (gemini). */
  readonly allowedTools?: readonly string[] | undefined;
  readonly unattended?: boolean | undefined;
  /**
   * Run as the CLI's own non-interactive mode does (umbel -p, spawn --non-interactive): a call that
   * would need a person is refused and the model is told, never asked (docs/cli-reference.md).
   */
  readonly nonInteractive?: boolean | undefined;
  readonly resumeSessionId?: string | undefined;
  /** Continue the most recent conversation in the cwd (claude: --continue) instead of a new one. */
  readonly continueSession?: boolean | undefined;
  readonly disallowedTools?: readonly string[] | undefined;
  readonly systemPrompt?: string | undefined;
  readonly appendSystemPrompt?: string | undefined;
  /** --add-dir's folders, absolute and symlink-resolved. */
  readonly addDirs?: readonly string[] | undefined;
  /** The caller's settings (a JSON object's text), merged into the provider's own hook settings. */
  readonly settings?: string | undefined;
  /** MCP server configs: JSON text or file paths, passed through (claude reads them itself). */
  readonly mcpConfig?: readonly string[] | undefined;
  /** The same configs read and merged: claude's `mcpServers` map (name → server), for other CLIs. */
  readonly mcpServers?: Readonly<Record<string, unknown>> | undefined;
  /** At a usage limit: stop (turn the CLI's own continuation off) or continue (leave it on). */
  readonly onLimit?: OnLimit | undefined;
  /**
   * Trust the cwd for this session only, recording nothing (-p, a spare of the warm pool), where the
   * CLI would otherwise ask and keep the answer in the user's configuration (claude).
   */
  readonly sessionTrust?: boolean | undefined;
  /** The optional launch flags given, e.g. `--system-prompt` (a provider refuses those it does not honour). */
  readonly launchFlags?: readonly LaunchFlag[] | undefined;
  /** The account of config.toml the worker runs on (spawn --account), resolved before the request; none: the default. */
  readonly account?: string | undefined;
  /** The names passed with --env (and the config file): a variable that is a mode switch is refused. */
  readonly envNames?: readonly string[] | undefined;
};

/** The request plus what the engine made for this worker: the binary, the hooks, the session. */
export type LaunchInput = LaunchRequest & {
  readonly bin: string;
  readonly sessionId: string;
  /** The shell command a hook runs; it reads the payload on stdin. */
  readonly hookCommand: string;
  /** The worker's events log (a plugin appends to it: opencode). */
  readonly eventsLog?: string | undefined;
  /** umbel's StructuredOutput server (spawn --structured), allowed without a permission prompt. */
  readonly structuredServer?: StructuredServer | undefined;
  readonly isRoot: boolean;
  /** A command that keeps the CLI's statusline JSON (claude's statusLine; it reads the JSON on stdin). */
  readonly statusLineCommand?: string | undefined;
};

/** The launch options a provider may not support, checked before any I/O. */
export type LaunchOptions = Pick<
  LaunchRequest,
  | "allowedTools"
  | "permissionMode"
  | "unattended"
  | "nonInteractive"
  | "launchFlags"
  | "mcpServers"
  | "settings"
  | "envNames"
>;

/** Every optional launch flag claude's TUI takes; other providers list the ones they honour. */
export type LaunchFlag =
  | "--disallowed-tools"
  | "--system-prompt"
  | "--append-system-prompt"
  | "--add-dir"
  | "--settings"
  | "--mcp-config"
  | "--continue"
  /** umbel's StructuredOutput server (claude, codex, gemini; not opencode yet). */
  | "--structured";

/** The usage error for launch flags given to a provider that does not honour them, or null. */
export function refuseLaunchFlags(
  provider: string,
  options: LaunchOptions,
  supported: readonly LaunchFlag[],
): string | null {
  const given = (options.launchFlags ?? []).filter(
    (flag) => !(supported as readonly string[]).includes(flag),
  );
  if (given.length === 0) return null;
  return `${given.join(", ")} ${given.length === 1 ? "is" : "are"} not supported with --provider ${provider}`;
}

export type LaunchPlan = {
  readonly argv: readonly string[];
  /** Fixed environment the provider needs (lowest precedence after the allowlist). */
  readonly env: Readonly<Record<string, string>>;
};
