import { resolveAccount } from "../../core/accounts/launch.ts";
import { keyMaterial } from "../../core/pool/pool.ts";
import type { Deps } from "../../core/ports.ts";
import { getProvider } from "../../core/providers/registry.ts";
import type { SpawnInput } from "../../core/spawn/input.ts";
import { buildWorkerEnv } from "../../core/worker/env.ts";
import { accountEnv } from "../spawn/prepare.ts";
import { resolveAddDirs, resolveBinary, resolveCwd } from "../spawn/resolve.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/**
 * The spawn key of a spawn: the keyed hash (StorePort.keyedHash) of everything the worker's start
 * depends on, its whole environment as spawn would build it included. Equal keys: a spare made for
 * one can stand in for the other. Validates as spawn does (a missing cwd or binary, a bad --env).
 */
export async function spawnKey(deps: Deps, input: SpawnInput): Promise<string> {
  return deps.store.keyedHash(await spawnKeyMaterial(deps, input));
}

/** What the spawn key hashes (core/pool/pool.ts keyMaterial), validated as spawn validates. */
export async function spawnKeyMaterial(deps: Deps, input: SpawnInput): Promise<string> {
  const provider = getProvider(input.provider);
  const cwd = await resolveCwd(deps, input.cwd);
  const addDirs = await resolveAddDirs(deps, input.addDir, cwd);
  const bin = resolveBinary(deps, provider);
  const userConfig = await loadUserConfig(deps);
  const account = resolveAccount(userConfig.config, input.account, provider, deps.env);
  const env = buildWorkerEnv({
    // An account's home (codex, gemini) is part of what a spare stands for, as its env is.
    host: { ...deps.env, ...account?.hostEnv },
    provider,
    providerEnv: {},
    explicit: accountEnv(userConfig, provider, account, deps.env, input.env),
    // UMBEL_SESSION is each worker's own name: not part of what a spare stands for.
    umbel: { UMBEL_HOME: deps.store.root },
  });
  return keyMaterial({ input, cwd, bin, addDirs, env });
}
