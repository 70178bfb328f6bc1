// Where the pinned real `opencode` lives once `npm run setup:real` installed it (see real-bin.ts).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { realOpencodeBinPath } from "../../scripts/setup-real-opencode.ts";
import { REAL_TIER_HINT } from "./real-bin.ts";

const REPO_ROOT = resolve(import.meta.dir, "..", "..");

/** The pinned real `opencode` executable (bin/opencode.exe), or null when it is not installed. */
function findRealOpencode(): string | null {
  const bin = realOpencodeBinPath(REPO_ROOT);
  return existsSync(bin) ? bin : null;
}

/**
 * The real binary, or null to skip the tier locally. CI sets UMBEL_REQUIRE_REAL=1, where a missing
 * binary is a failure with a clear message instead of a silent skip.
 */
export function requireRealOpencode(file: string): string | null {
  const bin = findRealOpencode();
  if (bin) return bin;
  if (process.env.UMBEL_REQUIRE_REAL === "1") {
    throw new Error(
      `${file}: the real opencode CLI is not installed but UMBEL_REQUIRE_REAL=1 (${REAL_TIER_HINT})`,
    );
  }
  console.warn(`${file} skipped: ${REAL_TIER_HINT}`);
  return null;
}

/**
 * The user's side of an opencode install pointed at the stub model: a custom provider through
 * OPENCODE_CONFIG_CONTENT (a variable opencode's provider passes on by name), as a user would put it
 * in their own config. OPENCODE_DISABLE_MODELS_FETCH keeps it off models.dev (no network in tests).
 */
export function stubOpencodeEnv(stubUrl: string): Record<string, string> {
  const config = {
    provider: {
      stub: {
        npm: "@ai-sdk/openai-compatible",
        name: "Stub",
        options: { baseURL: `${stubUrl}/v1`, apiKey: "stub-key" },
        models: { "stub-model": { name: "Stub Model" } },
      },
    },
    model: "stub/stub-model",
    small_model: "stub/stub-model",
  };
  return { OPENCODE_CONFIG_CONTENT: JSON.stringify(config), OPENCODE_DISABLE_MODELS_FETCH: "1" };
}
