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
