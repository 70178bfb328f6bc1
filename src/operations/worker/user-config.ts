import type { Deps } from "../../core/ports.ts";
import type { ProviderId, WithProvider } from "../../core/schemas.ts";
import {
  FALLBACK_PROVIDER,
  PROVIDER_ENV,
  resolveDefaultProvider,
} from "../../core/worker/default-provider.ts";
import { parseUserConfig, type UserConfig, userConfigPaths } from "../../core/worker/user-config.ts";

export type LoadedConfig = {
  /** The file in use, or null when there is none. */
  readonly file: string | null;
  readonly config: UserConfig;
  /** Other config files that exist but are not read (the first one found wins). */
  readonly shadowed: readonly string[];
  /** Where a new config file belongs: this state root's. */
  readonly home: string;
};

/** The user config (core/worker/user-config.ts): the first of its places that exists; a broken one is a UsageError. */
export async function loadUserConfig(deps: Deps): Promise<LoadedConfig> {
  const paths = userConfigPaths(deps.env, deps.store.root);
  const home = paths[0] as string;
  let found: { file: string; config: UserConfig } | null = null;
  const shadowed: string[] = [];
  for (const path of paths) {
    // The state root's own config: the root is checked first (a file or a stranger's folder there
    // is the root's fault, named as such, not a config file's).
    if (path === home) await deps.store.checkRoot();
    const text = await deps.files.readText(path);
    if (text === null) continue;
    if (found) shadowed.push(path);
    else found = { file: path, config: parseUserConfig(text, path) };
  }
  return { file: found?.file ?? null, config: found?.config ?? {}, shadowed, home };
}

/**
 * The provider of a request that names none (core/worker/default-provider.ts): UMBEL_PROVIDER, else the
 * config file's `provider`, else `fallback` (the dialect's own CLI). The file is read only when the
 * variable is unset.
 */
export async function loadDefaultProvider(deps: Deps, fallback: ProviderId): Promise<ProviderId> {
  const env = deps.env[PROVIDER_ENV];
  if (env !== undefined && env !== "") return resolveDefaultProvider({ env, config: undefined, fallback });
  const { config } = await loadUserConfig(deps);
  return resolveDefaultProvider({ env, config: config.provider, fallback });
}

/** `input` with its provider: the one it names, else the default (a face calls this, once). */
export async function withDefaultProvider<T extends { provider?: ProviderId | undefined }>(
  deps: Deps,
  input: T,
  fallback: ProviderId = FALLBACK_PROVIDER,
): Promise<WithProvider<T>> {
  return { ...input, provider: input.provider ?? (await loadDefaultProvider(deps, fallback)) };
}
