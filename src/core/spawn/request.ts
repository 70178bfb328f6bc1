import type { LaunchFlag, LaunchRequest } from "../providers/launch-types.ts";
import type { Provider } from "../providers/types.ts";
import type { SpawnInput } from "./input.ts";

/**
 * SpawnInput made into its LaunchRequest (the type is the provider contract's, in
 * core/providers/launch-types.ts, so the contract imports nothing of spawn).
 */
export type { LaunchRequest };

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
    account: input.account,
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
