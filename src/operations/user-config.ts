import type { Deps } from "../core/ports.ts";
import { parseUserConfig, type UserConfig, userConfigPaths } from "../core/user-config.ts";

export type LoadedConfig = {
  /** The file in use, or null when there is none. */
  readonly file: string | null;
  readonly config: UserConfig;
  /** Other config files that exist but are not read (the first one found wins). */
  readonly shadowed: readonly string[];
  /** Where a new config file belongs: this state root's. */
  readonly home: string;
};

/** The user config (core/user-config.ts): the first of its places that exists; a broken one is a UsageError. */
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
