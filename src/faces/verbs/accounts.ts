import { type AccountsResult, AccountsResult as AccountsResultSchema } from "../../core/accounts/list.ts";
import { AccountsInput, AccountsOutput } from "../../core/accounts/login.ts";
import { EmptyInput } from "../../core/schemas.ts";
import { listAccounts } from "../../operations/accounts/list.ts";
import { loginAccount } from "../../operations/accounts/login.ts";
import { renderAccounts } from "./render-accounts.ts";
import { defineVerb, LOOKS } from "./verb.ts";

/**
 * `umbel accounts` / `umbel_accounts`: config.toml's accounts and each provider's default sign-in;
 * `umbel accounts login NAME` (CLI only: a sign-in talks to a person on a terminal, which an MCP
 * client does not have) runs that account's CLI sign-in in its home.
 */
export const accountsVerb = defineVerb({
  name: "accounts",
  description:
    "List the accounts: each provider's default sign-in and each [accounts.NAME] of config.toml, with its home, billing route (and the variable names that decide it), its live workers, the windows its workers last showed (used % and reset, with how old) and its last usage limit. `login ACCOUNT` runs that account's own CLI sign-in on this terminal, in the account's home",
  input: AccountsInput,
  output: AccountsOutput,
  run: async ({ action, account, args }, { deps }): Promise<AccountsOutput> =>
    action === "login" ? { login: await loginAccount(deps, account, args) } : listAccounts(deps),
  text: (r) => (r.login ? "" : renderAccounts(listOf(r))),
  // A login's status is the CLI's own.
  exitCode: (r) => r.login?.exitCode ?? 0,
  cli: {
    usage: "[login ACCOUNT [-- FLAGS]]",
    summary: "list the accounts and their workers; login ACCOUNT: sign one in",
    positionals: ["action", "account", "args"],
    // A login's output was the terminal (the CLI's own); there is nothing to print after it.
    json: (r) => (r.login ? undefined : r.accounts),
    details:
      "login ACCOUNT runs the CLI's own sign-in with the account's home variable set (home made 0700 if missing): claude auth login (CLAUDE_CONFIG_DIR), codex login (CODEX_HOME), gemini's auth dialog on its first start, then /quit (GEMINI_CLI_HOME), opencode auth login (XDG_DATA_HOME). Flags after -- are the CLI's own (codex login --device-auth). umbel exits with the CLI's status. Not an MCP tool: a sign-in needs a person at a terminal.",
    examples: ["umbel accounts login work", "umbel accounts login cx -- --device-auth"],
  },
  mcp: {
    title: "List the accounts",
    annotations: LOOKS,
    // Listing only: a sign-in needs a person at a terminal (umbel accounts login NAME on the CLI).
    input: EmptyInput,
    output: AccountsResultSchema,
    text: (r) => renderAccounts(listOf(r)),
  },
});

function listOf(r: AccountsOutput): AccountsResult {
  return { accounts: r.accounts ?? [] };
}
