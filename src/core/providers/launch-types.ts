import type { StructuredServer } from "../guard/tool.ts";
import type { OnLimit } from "../limits/limits.ts";
import type { PermissionMode } from "../schemas.ts";

/** What the engine asks of a provider's launch: its input, its plan, and the options it refuses. */

export type LaunchInput = {
  readonly bin: string;
  readonly sessionId: string;
  /** The shell command a hook runs; it reads the payload on stdin. */
  readonly hookCommand: string;
  /** The worker's events log (a plugin appends to it: opencode). */
  readonly eventsLog?: string | undefined;
  readonly model?: string | undefined;
  readonly permissionMode?: PermissionMode | undefined;
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
  readonly addDirs?: readonly string[] | undefined;
  /** The caller's settings (a JSON object's text), merged into the provider's own hook settings. */
  readonly settings?: string | undefined;
  /** MCP server configs: JSON text or file paths, passed through (claude reads them itself). */
  readonly mcpConfig?: readonly string[] | undefined;
  /** The same configs read and merged: claude's `mcpServers` map (name → server), for other CLIs. */
  readonly mcpServers?: Readonly<Record<string, unknown>> | undefined;
  /** umbel's StructuredOutput server (spawn --structured), allowed without a permission prompt. */
  readonly structuredServer?: StructuredServer | undefined;
  readonly isRoot: boolean;
  /** At a usage limit: stop (turn the CLI's own continuation off) or continue (leave it on). */
  readonly onLimit?: OnLimit | undefined;
  /** A command that keeps the CLI's statusline JSON (claude's statusLine; it reads the JSON on stdin). */
  readonly statusLineCommand?: string | undefined;
  /**
   * Trust the cwd for this session only, recording nothing (-p, a spare of the warm pool), where the
   * CLI would otherwise ask and keep the answer in the user's configuration (claude).
   */
  readonly sessionTrust?: boolean | undefined;
};

/** The launch options a provider may not support, checked before any I/O. */
export type LaunchOptions = {
  readonly allowedTools?: readonly string[] | undefined;
  readonly permissionMode?: PermissionMode | undefined;
  readonly unattended?: boolean | undefined;
  readonly nonInteractive?: boolean | undefined;
  /** The optional launch flags given, e.g. `--system-prompt`. */
  readonly launchFlags?: readonly LaunchFlag[] | undefined;
  /** claude's `mcpServers` map from --mcp-config (a provider may refuse servers it cannot run). */
  readonly mcpServers?: Readonly<Record<string, unknown>> | undefined;
  /** The caller's settings text (claude): a setting that switches billing or hooks off is refused. */
  readonly settings?: string | undefined;
  /** The names passed with --env (and the config file): a variable that is a mode switch is refused. */
  readonly envNames?: readonly string[] | undefined;
};

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
