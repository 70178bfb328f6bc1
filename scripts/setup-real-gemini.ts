// Installs the pinned real Gemini CLI for the `test/real` tier, outside the repo's node_modules.
// Usage: bun run scripts/setup-real-gemini.ts   (idempotent; prints the path of the `gemini` executable)
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TESTED_CLIS } from "../src/core/doctor/tested-versions.ts";
import { installPinned } from "./install-pinned.ts";

/** The pinned release (bump it in the provider's `tested`, src/core/providers/<name>/provider.ts: `umbel doctor` compares against it). */
export const REAL_GEMINI_VERSION = TESTED_CLIS.gemini.version;

const PACKAGE = TESTED_CLIS.gemini.npm;

/** `<repo>/.cache/real/gemini-<version>`: an npm prefix of its own, so the repo lockfile is untouched. */
export function realGeminiDir(repoRoot: string, version: string = REAL_GEMINI_VERSION): string {
  return join(repoRoot, ".cache", "real", `gemini-${version}`);
}

/** The package's bin link (`bundle/gemini.js`, a node script: node must be on PATH). */
export function realGeminiBinPath(repoRoot: string, version: string = REAL_GEMINI_VERSION): string {
  return join(realGeminiDir(repoRoot, version), "node_modules", ".bin", "gemini");
}

/** Installs the pinned CLI once (idempotent) and returns its path; setup-real.ts may call it. */
export function installRealGemini(repoRoot: string): string {
  return installPinned({
    pkg: PACKAGE,
    version: REAL_GEMINI_VERSION,
    dir: realGeminiDir(repoRoot),
    binIn: (prefix) => join(prefix, "node_modules", ".bin", "gemini"),
    check: (bin) => {
      // Even `gemini --version` writes projects.json temp files into its home: give it a throwaway one.
      const home = mkdtempSync(join(tmpdir(), "umbel-gemini-version-"));
      const r = spawnSync(bin, ["--version"], {
        encoding: "utf8",
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GEMINI_CLI_HOME: home },
      });
      rmSync(home, { recursive: true, force: true });
      return r.status === 0 && r.stdout.trim() === REAL_GEMINI_VERSION ? null : `${r.stdout}${r.stderr}`;
    },
  });
}

if (import.meta.main) {
  try {
    console.log(installRealGemini(resolve(import.meta.dir, "..")));
  } catch (error) {
    console.error(`setup-real-gemini: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
