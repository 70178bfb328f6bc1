// Installs the pinned real OpenAI Codex CLI for the `test/real` tier, outside the repo's node_modules.
// Usage: bun run scripts/setup-real-codex.ts   (idempotent; prints the path of the `codex` entry)
// `npm run setup:real` runs it too (scripts/setup-real.ts).
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { TESTED_CLIS } from "../src/core/doctor/tested-versions.ts";
import { installPinned } from "./install-pinned.ts";

/** The pinned release (bump it in the provider's `tested`, src/core/providers/<name>/provider.ts: `umbel doctor` compares against it). */
export const REAL_CODEX_VERSION = TESTED_CLIS.codex.version;

const PACKAGE = TESTED_CLIS.codex.npm;

/** `<repo>/.cache/real/codex-<version>`: an npm prefix of its own, so the repo lockfile is untouched. */
export function realCodexDir(repoRoot: string, version: string = REAL_CODEX_VERSION): string {
  return join(repoRoot, ".cache", "real", `codex-${version}`);
}

/**
 * The package's `bin/codex.js`, what a user's `codex` runs: it finds the native binary of the
 * platform package (`@openai/codex-linux-x64`, an optional dependency) and runs it with the
 * CODEX_MANAGED_BY_NPM marker. Needs `node` on PATH.
 */
export function realCodexBinPath(repoRoot: string, version: string = REAL_CODEX_VERSION): string {
  return binInPrefix(realCodexDir(repoRoot, version));
}

export function installRealCodex(repoRoot: string): string {
  return installPinned({
    pkg: PACKAGE,
    version: REAL_CODEX_VERSION,
    dir: realCodexDir(repoRoot),
    binIn: binInPrefix,
    check: (bin) => {
      const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
      return r.status === 0 && r.stdout.includes(`codex-cli ${REAL_CODEX_VERSION}`)
        ? null
        : `${r.stdout}${r.stderr}`;
    },
  });
}

function binInPrefix(prefix: string): string {
  return join(prefix, "node_modules", ...PACKAGE.split("/"), "bin", "codex.js");
}

if (import.meta.main) {
  try {
    console.log(installRealCodex(resolve(import.meta.dir, "..")));
  } catch (error) {
    console.error(`setup-real-codex: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
