import type { SignInClues } from "../types.ts";

/**
 * Where Claude Code keeps a login (2.1.332): `.credentials.json` in its config dir on Linux (the
 * macOS Keychain instead), and the account in `.claude.json` (`oauthAccount`) on both. Its config
 * dir is $CLAUDE_CONFIG_DIR, else ~/.claude with `.claude.json` beside it in ~.
 */
export function claudeSignInClues(env: Readonly<Record<string, string | undefined>>): SignInClues {
  const home = env.HOME ?? "";
  const dir = env.CLAUDE_CONFIG_DIR || `${home}/.claude`;
  return {
    files: [`${dir}/.credentials.json`],
    account: {
      file: env.CLAUDE_CONFIG_DIR ? `${dir}/.claude.json` : `${home}/.claude.json`,
      key: "oauthAccount",
    },
    // Bedrock and Vertex sign in through the cloud's own credentials; workers inherit these.
    env: ["CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"],
    keychainOnMac: true,
  };
}
