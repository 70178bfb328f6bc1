// Installs the pinned real OpenAI Codex CLI for the `test/real` tier, outside the repo's node_modules.
// Usage: bun run scripts/setup-real-codex.ts   (idempotent; prints the path of the `codex` entry)
// `npm run setup:real` runs it too (scripts/setup-real.ts).
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";

/** Bump this to move the real tier to another Codex release. */
export const REAL_CODEX_VERSION = "0.171.0";

const PACKAGE = "@openai/codex";

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
  const dir = realCodexDir(repoRoot);
  const bin = realCodexBinPath(repoRoot);
  if (existsSync(bin)) return bin;

  // Install into a scratch prefix and rename it into place, so an interrupted install never
  // looks complete to the next run or to findRealCodex().
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
      `${PACKAGE}@${REAL_CODEX_VERSION}`,
    ],
    { stdio: ["ignore", "inherit", "inherit"], cwd: scratch },
  );
  if (npm.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`npm install ${PACKAGE}@${REAL_CODEX_VERSION} failed (exit ${npm.status})`);
  }
  const version = spawnSync(binInPrefix(scratch), ["--version"], { encoding: "utf8" });
  if (version.status !== 0 || !version.stdout.includes(`codex-cli ${REAL_CODEX_VERSION}`)) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`installed codex does not run: ${version.stdout}${version.stderr}`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(`installed ${PACKAGE}@${REAL_CODEX_VERSION} in ${seconds}s`);
  return bin;
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
