import type { StructuredServer } from "../guard/tool.ts";
import type { LaunchRequest } from "../spawn/request.ts";

/**
 * What the engine asks of a provider's launch: its input, its plan, and the options it refuses. The
 * spawn's own part of each is its LaunchRequest (core/spawn/request.ts), made once from SpawnInput.
 */

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
