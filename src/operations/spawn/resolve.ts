import { isAbsolute, resolve } from "node:path";
import { quoteArg } from "../../core/common/quote.ts";
import { BinaryNotFoundError, UsageError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import type { Provider } from "../../core/providers/types.ts";
import { mergeMcpConfigs } from "../../core/spawn/mcp-config.ts";
import { readJsonOrFile } from "../worker/json-or-file.ts";

/** What spawn (and the pool's spawn key) reads of the world to validate a spawn: folders, binary, files. */

export async function resolveCwd(deps: Deps, cwd: string | undefined): Promise<string> {
  const path = cwd === undefined ? deps.cwd : isAbsolute(cwd) ? cwd : resolve(deps.cwd, cwd);
  return requireDirectory(deps, "--cwd", path, "cwd");
}

/** --add-dir folders, absolute (relative to the worker's cwd); a missing one is a usage error. */
export async function resolveAddDirs(
  deps: Deps,
  dirs: readonly string[] | undefined,
  cwd: string,
): Promise<string[] | undefined> {
  if (dirs === undefined) return undefined;
  const out: string[] = [];
  for (const dir of dirs) {
    out.push(await requireDirectory(deps, "--add-dir", isAbsolute(dir) ? dir : resolve(cwd, dir), "path"));
  }
  return out;
}

export function resolveBinary(deps: Deps, provider: Provider): string {
  const wanted = deps.env[provider.binEnv] || provider.defaultBin;
  const found = deps.system.which(wanted, { PATH: deps.env.PATH ?? "", cwd: deps.cwd });
  if (!found) {
    throw new BinaryNotFoundError(
      `${provider.displayName} CLI not found: ${wanted} (install it, or set ${provider.binEnv} to its path)`,
      { bin: wanted, env: provider.binEnv },
    );
  }
  return found;
}

/** Each --mcp-config is JSON text or a file (relative to the worker's cwd); read and merged. */
export async function readMcpServers(
  deps: Deps,
  values: readonly string[],
  cwd: string,
): Promise<Record<string, unknown>> {
  const configs = [];
  for (const value of values) {
    const { path, text } = await readJsonOrFile(deps.files, value, cwd);
    if (text === null)
      throw new UsageError(`--mcp-config ${quoteArg(path ?? value)}: file not found`, { path });
    configs.push({ source: path === null ? "(inline JSON)" : quoteArg(path, 200), text });
  }
  return mergeMcpConfigs(configs);
}

/** / or the home directory among the folders a CLI may ask to trust: umbel never trusts those itself. */
export async function untrustedFolder(deps: Deps, folders: readonly string[]): Promise<string | null> {
  const home = deps.env.HOME ? await deps.files.realpath(deps.env.HOME).catch(() => deps.env.HOME) : null;
  return folders.find((folder) => folder === "/" || folder === home) ?? null;
}

/** `path` when it is a directory; else a usage error naming the flag (its data keyed by `key`). */
async function requireDirectory(deps: Deps, flag: string, path: string, key: string): Promise<string> {
  if (!(await deps.files.isDirectory(path)))
    throw new UsageError(`${flag} ${quoteArg(path, 200)} is not a directory`, { [key]: path });
  // The real path: a symlink to / must not get / trusted under another name.
  return deps.files.realpath(path);
}
