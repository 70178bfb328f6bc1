import { refuseLiteralEnv } from "../../core/accounts/failover.ts";
import { type AccountLaunch, resolveAccount } from "../../core/accounts/launch.ts";
import { UsageError } from "../../core/errors.ts";
import { STRUCTURED_SERVER_NAME } from "../../core/guard/tool.ts";
import type { Deps } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import type { Provider } from "../../core/providers/types.ts";
import type { EnvSpec } from "../../core/schemas.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import { type LaunchRequest, launchRequest } from "../../core/spawn/request.ts";
import { buildWorkerEnv } from "../../core/worker/env.ts";
import { withConfiguredEnv } from "../../core/worker/user-config.ts";
import { checkFleetOptions } from "../fleet/files.ts";
import { planWorktree, type WorktreePlan } from "../fleet/worktree.ts";
import { type LoadedConfig, loadUserConfig } from "../worker/user-config.ts";
import { readMcpServers, resolveAddDirs, resolveBinary, resolveCwd } from "./resolve.ts";

export const DEFAULT_START_TIMEOUT_MS = 60_000;

/** A spawn checked against the world, before anything is made: what the rest of the launch reads. */
export type PreparedSpawn = {
  readonly provider: Provider;
  /** The cwd given, absolute and symlink-resolved (a --worktree's replaces it once made). */
  readonly cwd: string;
  readonly sessionId: string;
  readonly bin: string;
  readonly request: LaunchRequest;
  readonly userConfig: LoadedConfig;
  /** The account of config.toml it runs on (spawn --account), or null: the provider's default. */
  readonly account: AccountLaunch | null;
  /** --env with the account's mapping under it, and the config file's names for this provider under both. */
  readonly explicitEnv: EnvSpec | undefined;
  readonly worktree: WorktreePlan | null;
  /** The names of the worker's environment before the provider's plan adds its own. */
  readonly workerEnvNames: readonly string[];
  readonly timeoutMs: number;
  /** This process's start (SystemPort.processStart), or null where it cannot be read. */
  readonly spawnerStart: string | null;
};

/**
 * Validates everything before any I/O that makes something: the folders, the binary, the MCP
 * configs, the options the provider refuses, the fleet options, the worktree, --env. Reads only.
 */
export async function prepareSpawn(
  deps: Deps,
  input: SpawnInput,
  options: { sessionTrust: boolean },
): Promise<PreparedSpawn> {
  const provider = getProvider(input.provider);
  const literal = input.onLimit === "failover" ? refuseLiteralEnv(input.env) : null;
  if (literal) throw new UsageError(literal, { onLimit: input.onLimit });
  const cwd = await resolveCwd(deps, input.cwd);
  const addDirs = await resolveAddDirs(deps, input.addDir, cwd);
  // claude --resume keeps the session id it resumes.
  const sessionId = input.resumeSession ?? deps.system.uuid();
  const bin = resolveBinary(deps, provider);
  const mcpServers = input.mcpConfig ? await readMcpServers(deps, input.mcpConfig, cwd) : undefined;
  if (input.structured && mcpServers && STRUCTURED_SERVER_NAME in mcpServers)
    throw new UsageError(
      `--mcp-config: the server name "${STRUCTURED_SERVER_NAME}" is umbel's own with --structured; rename yours`,
      { name: STRUCTURED_SERVER_NAME },
    );
  // The user config's names for this provider (a container's CLAUDE_CODE_OAUTH_TOKEN), under --env.
  const userConfig = await loadUserConfig(deps);
  const account = resolveAccount(userConfig.config, input.account, provider, deps.env);
  const explicitEnv = accountEnv(userConfig, provider, account, deps.env, input.env);
  const request = launchRequest(input, provider, {
    addDirs,
    mcpServers,
    envNames: Object.keys(explicitEnv ?? {}),
    sessionTrust: options.sessionTrust,
  });
  const refused = provider.checkLaunchOptions?.(request);
  if (refused) throw new UsageError(refused, { provider: provider.id });
  checkFleetOptions(provider, input);
  const worktree = input.worktree ? await planWorktree(deps, input.name, cwd, input.base) : null;
  // Validates --env (a missing {fromEnv}) before anything is made; rebuilt at start with the plan's env.
  const probeEnv = buildWorkerEnv({
    host: deps.env,
    provider,
    providerEnv: {},
    explicit: explicitEnv,
    umbel: {},
  });
  return {
    provider,
    cwd,
    sessionId,
    bin,
    request,
    userConfig,
    account,
    explicitEnv,
    worktree,
    workerEnvNames: Object.keys(probeEnv),
    timeoutMs: input.startTimeout ?? DEFAULT_START_TIMEOUT_MS,
    // Read here, not after the boot slot: see the virtual clock's note in spawn.ts.
    spawnerStart: await deps.system.processStart(deps.pid),
  };
}

/**
 * A worker's explicit env: --env over the account's mapping (and its home variable) over the
 * config's names for the provider. On an account, the provider's sign-in token from [provider] env
 * (claude's CLAUDE_CODE_OAUTH_TOKEN) is left out: it would sign the worker in to the default account
 * whatever the account's home holds.
 */
export function accountEnv(
  userConfig: LoadedConfig,
  provider: Provider,
  account: AccountLaunch | null,
  hostEnv: Readonly<Record<string, string | undefined>>,
  explicit: EnvSpec | undefined,
): EnvSpec | undefined {
  if (account === null) return withConfiguredEnv(userConfig.config, provider.id, hostEnv, explicit);
  const token = provider.signInToken?.env;
  const config = userConfig.config;
  const names = (config[provider.id]?.env ?? []).filter((name) => name !== token);
  const trimmed = { ...config, [provider.id]: { env: names } };
  return withConfiguredEnv(trimmed, provider.id, hostEnv, { ...account.env, ...explicit });
}
