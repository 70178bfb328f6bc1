// Where the real-tier vendor binaries live once `npm run setup:real` installed them.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { realClaudeBinPath } from "../../scripts/setup-real.ts";

export const REAL_TIER_HINT = "run npm run setup:real to enable the real tier";

const REPO_ROOT = resolve(import.meta.dir, "..", "..");

/** The pinned real `claude` executable, or null when it is not installed. */
export function findRealClaude(): string | null {
  const bin = realClaudeBinPath(REPO_ROOT);
  return existsSync(bin) ? bin : null;
}

/**
 * The real binary, or null to skip the tier locally. CI sets UMBEL_REQUIRE_REAL=1, where a missing
 * binary is a failure with a clear message instead of a silent skip.
 */
export function requireRealClaude(file: string): string | null {
  const bin = findRealClaude();
  if (bin) return bin;
  if (process.env.UMBEL_REQUIRE_REAL === "1") {
    throw new Error(
      `${file}: the real claude CLI is not installed but UMBEL_REQUIRE_REAL=1 (${REAL_TIER_HINT})`,
    );
  }
  console.warn(`${file} skipped: ${REAL_TIER_HINT}`);
  return null;
}
