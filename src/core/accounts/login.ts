import { z } from "zod";
import { choiceError, didYouMean } from "../common/suggest.ts";
import { UsageError } from "../errors.ts";
import type { Provider } from "../providers/types.ts";
import { type ProviderId, ProviderId as ProviderIdSchema } from "../schemas.ts";
import type { UserConfig } from "../worker/user-config.ts";
import { expandHome } from "./launch.ts";
import { AccountsResult } from "./list.ts";
import { AUTO_ACCOUNT } from "./schema.ts";

/**
 * `umbel accounts login NAME`: the CLI's own sign-in (Provider.signInArgs) run on the user's
 * terminal with the account's home variable set to the account's home itself, the way a worker's
 * is set (Provider.accountHome) except for codex, whose workers get a managed CODEX_HOME that
 * links the account home's auth.json: the sign-in writes the file that link names.
 */

/** `umbel accounts [login NAME]`: the CLI's input (MCP's umbel_accounts takes none: it lists). */
export const AccountsInput = z
  .object({
    action: z
      .enum(["login"], { error: choiceError })
      .optional()
      .describe(
        "login: run the account's own CLI sign-in on this terminal (CLI only); none: list the accounts",
      ),
    // Not `name`: that positional completes worker names.
    account: z.string().optional().describe("login: the account ([accounts.NAME] of config.toml)"),
    args: z
      .array(z.string())
      .optional()
      .describe("login: the CLI's own flags for its sign-in, after -- (codex login --device-auth)"),
  })
  .strict();
export type AccountsInput = z.infer<typeof AccountsInput>;

export const LoginResult = z.object({
  account: z.string().describe("The account signed in"),
  provider: ProviderIdSchema,
  home: z.string().describe("Its home (~ expanded), made 0700 when it was missing"),
  command: z.array(z.string()).describe("The sign-in command run (the CLI and its arguments)"),
  exitCode: z.number().describe("The CLI's exit status (128+N for signal N), umbel's own"),
});
export type LoginResult = z.infer<typeof LoginResult>;

/** What the accounts verb answers: the list, or a login's record (the terminal was its output). */
export const AccountsOutput = z.object({
  accounts: AccountsResult.shape.accounts.optional(),
  login: LoginResult.optional().describe("accounts login: the sign-in that ran"),
});
export type AccountsOutput = z.infer<typeof AccountsOutput>;

export type LoginPlan = {
  readonly account: string;
  readonly provider: ProviderId;
  /** The account's home, `~` expanded. */
  readonly home: string;
  /** The CLI's arguments (the binary is the operation's to find). */
  readonly args: readonly string[];
  /** The sign-in's whole environment. */
  readonly env: Readonly<Record<string, string>>;
};

/**
 * The sign-in of account `name`, pure. Its environment is umbel's own (a browser to open, the
 * terminal), the home variable set, without the variables that would sign the CLI in by themselves
 * (the provider's sign-in token and explicit-only keys: claude's CLAUDE_CODE_OAUTH_TOKEN, an
 * inherited ANTHROPIC_API_KEY, opencode's OPENCODE_AUTH_CONTENT, which opencode would write back
 * into this home's auth.json). The account's own `env` mapping is a worker's, never the sign-in's.
 * `extra` (the CLI's own flags, given after `--`) follows the sign-in command: the caller's choice,
 * named, as any flag is. No name, `auto`, an unknown name and an account with no home are UsageErrors.
 */
export function planLogin(
  config: UserConfig,
  name: string | undefined,
  providerOf: (
    id: ProviderId,
  ) => Pick<Provider, "accountHome" | "signInArgs" | "explicitOnlyEnv" | "signInToken">,
  hostEnv: Readonly<Record<string, string | undefined>>,
  extra: readonly string[] = [],
): LoginPlan {
  const accounts = config.accounts ?? {};
  const known = Object.keys(accounts);
  const declared = known.length > 0 ? `declared: ${known.join(", ")}` : "none is declared in config.toml";
  if (name === undefined)
    throw new UsageError(
      `umbel accounts login needs an account name (${declared}); the default sign-in is the CLI's own, run as usual`,
      { known },
    );
  if (name === AUTO_ACCOUNT)
    throw new UsageError(`"${AUTO_ACCOUNT}" is --account's placement keyword, not an account (${declared})`, {
      account: name,
      known,
    });
  const account = accounts[name];
  if (account === undefined)
    throw new UsageError(`no account "${name}" (${declared})${didYouMean(name, known)}`, {
      account: name,
      known,
    });
  const provider = providerOf(account.provider);
  if (account.home === undefined)
    throw new UsageError(
      `account "${name}" has no home: its sign-in is its token variables (${Object.keys(account.env ?? {}).join(", ")}); add home = "…" to sign in there`,
      { account: name },
    );
  const home = expandHome(account.home, hostEnv, name);
  const homed = provider.accountHome(home);
  const dropped = new Set([
    ...provider.explicitOnlyEnv,
    ...(provider.signInToken ? [provider.signInToken.env] : []),
  ]);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(hostEnv))
    if (value !== undefined && !dropped.has(key)) env[key] = value;
  return {
    account: name,
    provider: account.provider,
    home,
    args: [...provider.signInArgs, ...extra],
    env: { ...env, ...homed.hostEnv, ...homed.env },
  };
}
