// Installs the pinned real Gemini CLI for the `test/real` tier, outside the repo's node_modules.
// Usage: bun run scripts/setup-real-gemini.ts   (idempotent; prints the path of the `gemini` executable)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** Bump this to move the real tier to another Gemini CLI release. */
export const REAL_GEMINI_VERSION = "0.61.0";

const PACKAGE = "@google/gemini-cli";

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
  const dir = realGeminiDir(repoRoot);
  const bin = realGeminiBinPath(repoRoot);
  if (existsSync(bin)) return bin;

  // A scratch prefix renamed into place: an interrupted install never looks complete.
  const scratch = `${dir}.partial-${process.pid}`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch, { recursive: true });
  const started = performance.now();
  const npm = spawnSync(
    "npm",
    [
      "install",
      "--prefix",
      scratch,
      "--no-save",
      "--no-package-lock",
      "--no-audit",
      "--no-fund",
      "--no-update-notifier",
      "--loglevel=error",
      `${PACKAGE}@${REAL_GEMINI_VERSION}`,
    ],
    { stdio: ["ignore", "inherit", "inherit"], cwd: scratch },
  );
  if (npm.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`npm install ${PACKAGE}@${REAL_GEMINI_VERSION} failed (exit ${npm.status})`);
  }
  // Even `gemini --version` writes projects.json temp files into its home: give it a throwaway one.
  const home = mkdtempSync(join(tmpdir(), "umbel-gemini-version-"));
  const version = spawnSync(join(scratch, "node_modules", ".bin", "gemini"), ["--version"], {
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, GEMINI_CLI_HOME: home },
  });
  rmSync(home, { recursive: true, force: true });
  if (version.status !== 0 || version.stdout.trim() !== REAL_GEMINI_VERSION) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`installed gemini does not run: ${version.stdout}${version.stderr}`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(`installed ${PACKAGE}@${REAL_GEMINI_VERSION} in ${seconds}s`);
  return bin;
}

if (import.meta.main) {
  try {
    console.log(installRealGemini(resolve(import.meta.dir, "..")));
  } catch (error) {
    console.error(`setup-real-gemini: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
