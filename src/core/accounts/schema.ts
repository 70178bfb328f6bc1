import { z } from "zod";
import { EnvName, ProviderId } from "../schemas.ts";

/**
 * An account: where one provider's CLI keeps one sign-in (its config home), plus the names of the
 * variables that carry a token. Declared in config.toml as `[accounts.NAME]`, names only:
 *
 *   [accounts.work]
 *   provider = "claude"
 *   home = "~/.claude-work"
 *   env = { CLAUDE_CODE_OAUTH_TOKEN = "WORK_CLAUDE_TOKEN" }
 *
 * What `home` becomes for each CLI is core/accounts/launch.ts's (docs/accounts.md).
 */

/** `auto` is the placement keyword (spawn --account auto), never an account's name. */
export const AUTO_ACCOUNT = "auto";

export const AccountName = z
  .string()
  .regex(
    /^[a-z0-9][a-z0-9-]{0,62}$/,
    "an account name is 1-63 of a-z 0-9 - and starts with a letter or digit",
  )
  .refine(
    (name) => name !== AUTO_ACCOUNT,
    `"${AUTO_ACCOUNT}" is spawn --account's placement keyword, not a name`,
  )
  .describe("An account declared as [accounts.NAME] in config.toml");
export type AccountName = z.infer<typeof AccountName>;

const Account = z
  .object({
    provider: ProviderId.describe("The CLI this account signs in"),
    home: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Where the CLI keeps this sign-in (~ is your HOME): claude's CLAUDE_CONFIG_DIR, codex's CODEX_HOME, gemini's GEMINI_CLI_HOME, opencode's XDG_DATA_HOME",
      ),
    env: z
      .record(EnvName, EnvName.describe("The variable in umbel's environment the value is copied from"))
      .optional()
      .describe(
        "TARGET = SOURCE: the worker gets TARGET set from umbel's $SOURCE (names only, never values)",
      ),
  })
  .strict();
export type Account = z.infer<typeof Account>;

export const Accounts = z.record(z.string(), Account);
export type Accounts = z.infer<typeof Accounts>;
