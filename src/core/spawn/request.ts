import type { OnLimit } from "../limits/limits.ts";
import type { LaunchFlag } from "../providers/launch-types.ts";
import type { Provider } from "../providers/types.ts";
import type { PermissionMode, SpawnInput } from "../schemas.ts";

/**
 * What a spawn asks of its provider's CLI, in the providers' terms: the one place SpawnInput's fields
 * are renamed and mapped for them. The pre-I/O refusal check (LaunchOptions), the launch planner's
 * input (LaunchInput) and a provider home's flags (HomeLaunch) are parts of it (launch-types.ts,
 * home-types.ts), so a new spawn option is a SpawnInput field, its field here and its line in
 * `launchRequest`, then the providers that honour it (CONTRIBUTING.md, "Add a spawn option").
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
  /** The names passed with --env (and the config file): a variable that is a mode switch is refused. */
  readonly envNames?: readonly string[] | undefined;
};

/** What spawn found out by I/O before the request: the folders resolved, the files read. */
export type ResolvedSpawn = {
  readonly addDirs: readonly string[] | undefined;
  readonly mcpServers: Readonly<Record<string, unknown>> | undefined;
  /** The names of the explicit environment (--env and the config file's), never their values. */
  readonly envNames: readonly string[];
  /** SpawnExtra.sessionTrust: -p's workers and the pool's spares. */
  readonly sessionTrust: boolean;
};

export function launchRequest(
  input: SpawnInput,
  provider: Pick<Provider, "policy">,
  resolved: ResolvedSpawn,
): LaunchRequest {
  return {
    model: input.model,
    permissionMode: input.permissionMode,
    allowedTools: nativeAllowedTools(provider, input),
    unattended: input.unattended === true,
    nonInteractive: input.nonInteractive,
    // claude --resume keeps the session id it resumes.
    resumeSessionId: input.resumeSession,
    continueSession: input.continueSession,
    disallowedTools: input.disallowedTools,
    systemPrompt: input.systemPrompt,
    appendSystemPrompt: input.appendSystemPrompt,
    addDirs: resolved.addDirs,
    settings: input.settings,
    mcpConfig: input.mcpConfig,
    mcpServers: resolved.mcpServers,
    onLimit: input.onLimit,
    sessionTrust: resolved.sessionTrust,
    launchFlags: launchFlagsGiven(input),
    envNames: resolved.envNames,
  };
}

/** The optional launch flags given (a provider that does not honour one refuses it: never dropped silently). */
function launchFlagsGiven(input: SpawnInput): LaunchFlag[] {
  const given: [LaunchFlag, unknown][] = [
    ["--disallowed-tools", input.disallowedTools?.length],
    ["--system-prompt", input.systemPrompt],
    ["--append-system-prompt", input.appendSystemPrompt],
    ["--add-dir", input.addDir?.length],
    ["--settings", input.settings],
    ["--mcp-config", input.mcpConfig?.length],
    ["--continue", input.continueSession],
    ["--structured", input.structured],
  ];
  return given.flatMap(([flag, value]) => (value ? [flag] : []));
}

/** allow rules the CLI answers itself (gemini's --allowed-tools), merged into allowedTools. */
function nativeAllowedTools(provider: Pick<Provider, "policy">, input: SpawnInput): string[] | undefined {
  const native = provider.policy?.allowEvent === null ? (input.allow ?? []) : [];
  const tools = [...(input.allowedTools ?? []), ...native];
  return tools.length > 0 ? tools : input.allowedTools;
}
