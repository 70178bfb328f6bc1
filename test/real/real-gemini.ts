// Where the real-tier Gemini CLI lives once `bun run scripts/setup-real-gemini.ts` installed it.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { realGeminiBinPath } from "../../scripts/setup-real-gemini.ts";

const REAL_GEMINI_HINT = "run bun run scripts/setup-real-gemini.ts to enable the real gemini tier";

const REPO_ROOT = resolve(import.meta.dir, "..", "..");

/** The pinned real `gemini` executable, or null when it is not installed. */
function findRealGemini(): string | null {
  const bin = realGeminiBinPath(REPO_ROOT);
  return existsSync(bin) ? bin : null;
}

/**
 * The real binary, or null to skip the tier locally. CI sets UMBEL_REQUIRE_REAL=1, where a missing
 * binary is a failure with a clear message instead of a silent skip.
 */
export function requireRealGemini(file: string): string | null {
  const bin = findRealGemini();
  if (bin) return bin;
  if (process.env.UMBEL_REQUIRE_REAL === "1") {
    throw new Error(
      `${file}: the real gemini CLI is not installed but UMBEL_REQUIRE_REAL=1 (${REAL_GEMINI_HINT})`,
    );
  }
  console.warn(`${file} skipped: ${REAL_GEMINI_HINT}`);
  return null;
}
