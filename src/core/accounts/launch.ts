import { didYouMean } from "../common/suggest.ts";
import { UsageError } from "../errors.ts";
import type { Provider } from "../providers/types.ts";
import type { EnvSpec, ProviderId } from "../schemas.ts";
import type { UserConfig } from "../worker/user-config.ts";
import { AUTO_ACCOUNT } from "./schema.ts";

/**
 * What an account changes for one worker (measured per CLI; docs/providers.md, "accounts: what
 * isolates a sign-in"; each provider's `accountHome` says it). An account's `home` is the value that
 * CLI's own home variable takes, so the whole config home of that sign-in (its settings too: the
 * selected auth method, a forced login method) comes from it:
 * - claude: the worker's CLAUDE_CONFIG_DIR (`.credentials.json`, `.claude.json` and the transcripts
 *   live there; 2.1.332);
 * - codex: umbel's managed CODEX_HOME for this account (`codex-home-<account>`) links the account
 *   home's auth.json and copies its config.toml, where the default links the user's ~/.codex (0.171.0);
 * - gemini: the worker's own GEMINI_CLI_HOME links the auth files of `<home>/.gemini` and layers its
 *   settings.json, as the default does from `$HOME/.gemini` (0.61.0);
 * - opencode: the worker's XDG_DATA_HOME (`<home>/opencode/auth.json`; its sessions database moves
 *   with it, and umbel follows the database the plugin names; 1.18.33).
 * `env` maps TARGET ← umbel's $SOURCE, by name, exactly as `--env TARGET` would copy it.
 */
export type AccountLaunch = {
  readonly name: string;
  readonly provider: ProviderId;
  /** The home, `~` expanded, or undefined (an account of token variables only). */
  readonly home: string | undefined;
  /** The worker's env from the account: its mapping (by name) and the home variable (a path). */
  readonly env: EnvSpec;
  /** Overrides of umbel's environment as the provider's home planner reads it (codex, gemini). */
  readonly hostEnv: Readonly<Record<string, string>>;
};

/**
 * The account a spawn names, checked before any I/O; null for none (the provider's default sign-in:
 * nothing changes). An unknown name, another provider's account, `auto` (placed before this, by
 * operations/accounts/place.ts: `pool warm` does not place) and a mapping whose SOURCE is unset are
 * UsageErrors.
 */
export function resolveAccount(
  config: UserConfig,
  choice: string | undefined,
  provider: Pick<Provider, "id" | "accountHome">,
  hostEnv: Readonly<Record<string, string | undefined>>,
): AccountLaunch | null {
  if (choice === undefined) return null;
  if (choice === AUTO_ACCOUNT)
    throw new UsageError(
      "--account auto is placed by spawn, -p and a workflow's workers (operations/accounts/place.ts); here, name an account (umbel accounts lists them)",
      { account: choice },
    );
  const accounts = config.accounts ?? {};
  const account = accounts[choice];
  if (account === undefined) {
    const known = Object.keys(accounts);
    const declared = known.length > 0 ? `declared: ${known.join(", ")}` : "none is declared in config.toml";
    throw new UsageError(`no account "${choice}" (${declared})${didYouMean(choice, known)}`, {
      account: choice,
      known,
    });
  }
  if (account.provider !== provider.id)
    throw new UsageError(
      `account "${choice}" is a ${account.provider} account; this worker runs ${provider.id} (pass --provider ${account.provider}, or another account)`,
      { account: choice, accountProvider: account.provider, provider: provider.id },
    );
  const env: Record<string, EnvSpec[string]> = {};
  for (const [target, source] of Object.entries(account.env ?? {})) {
    if (hostEnv[source] === undefined)
      throw new UsageError(
        `account "${choice}": env ${target} comes from $${source}, which is not set in umbel's environment`,
        { account: choice, name: target, fromEnv: source },
      );
    env[target] = { fromEnv: source };
  }
  const home = account.home === undefined ? undefined : expandHome(account.home, hostEnv, choice);
  const homed = home === undefined ? { env: {}, hostEnv: {} } : provider.accountHome(home);
  return { name: choice, provider: provider.id, home, env: { ...homed.env, ...env }, hostEnv: homed.hostEnv };
}

/** `~` and `~/…` against HOME; any other path must be absolute. */
export function expandHome(
  path: string,
  hostEnv: Readonly<Record<string, string | undefined>>,
  account: string,
): string {
  const trimmed = path.length > 1 ? path.replace(/\/+$/, "") : path;
  if (trimmed === "~" || trimmed.startsWith("~/")) {
    const home = hostEnv.HOME;
    if (!home)
      throw new UsageError(`account "${account}": home starts with ~ but HOME is not set`, { account });
    return `${home.replace(/\/+$/, "")}${trimmed.slice(1)}`;
  }
  if (!trimmed.startsWith("/"))
    throw new UsageError(`account "${account}": home is an absolute path or starts with ~/`, { account });
  return trimmed;
}
