import type { SignInClues } from "../types.ts";
import { userGeminiDir } from "./home.ts";

/**
 * gemini's Google login is `oauth_creds.json` (or `gemini-credentials.json` with encrypted storage)
 * in the user's gemini dir; an API key or Google credentials in the environment sign it in too, and
 * workers inherit those (gemini/provider.ts envNames).
 */
export function geminiSignInClues(env: Readonly<Record<string, string | undefined>>): SignInClues {
  const dir = userGeminiDir(env);
  return {
    files: dir === null ? [] : [`${dir}/oauth_creds.json`, `${dir}/gemini-credentials.json`],
    env: ["GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_APPLICATION_CREDENTIALS"],
  };
}
