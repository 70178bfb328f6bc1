// Where the pinned real `codex` lives once `npm run setup:real` installed it (see real-bin.ts).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { realCodexBinPath } from "../../scripts/setup-real-codex.ts";
import { REAL_TIER_HINT } from "./real-bin.ts";

const REPO_ROOT = resolve(import.meta.dir, "..", "..");

/** The pinned real `codex` entry (bin/codex.js), or null when it is not installed. */
function findRealCodex(): string | null {
  const bin = realCodexBinPath(REPO_ROOT);
  return existsSync(bin) ? bin : null;
}

/**
 * The real binary, or null to skip the tier locally. CI sets UMBEL_REQUIRE_REAL=1, where a missing
 * binary is a failure with a clear message instead of a silent skip.
 */
export function requireRealCodex(file: string): string | null {
  const bin = findRealCodex();
  if (bin) return bin;
  if (process.env.UMBEL_REQUIRE_REAL === "1") {
    throw new Error(
      `${file}: the real codex CLI is not installed but UMBEL_REQUIRE_REAL=1 (${REAL_TIER_HINT})`,
    );
  }
  console.warn(`${file} skipped: ${REAL_TIER_HINT}`);
  return null;
}
