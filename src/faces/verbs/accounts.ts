import { AccountsResult } from "../../core/accounts/list.ts";
import { EmptyInput } from "../../core/schemas.ts";
import { listAccounts } from "../../operations/accounts/list.ts";
import { renderAccounts } from "./render-accounts.ts";
import { defineVerb, LOOKS } from "./verb.ts";

/** `umbel accounts` / `umbel_accounts`: config.toml's accounts and each provider's default sign-in. */
export const accountsVerb = defineVerb({
  name: "accounts",
  description:
    "List the accounts: each provider's default sign-in and each [accounts.NAME] of config.toml, with its home, billing route (and the variable names that decide it), its live workers, the windows its workers last showed (used % and reset, with how old) and its last usage limit",
  input: EmptyInput,
  output: AccountsResult,
  run: (_input, { deps }) => listAccounts(deps),
  text: renderAccounts,
  cli: {
    usage: "",
    summary: "list the accounts (config.toml [accounts.NAME] and each default) and their workers",
    json: (r) => r.accounts,
    examples: ["umbel accounts", "umbel accounts --json"],
  },
  mcp: { title: "List the accounts", annotations: LOOKS, text: renderAccounts },
});
