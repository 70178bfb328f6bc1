// Installs the pinned real Claude Code CLI for the `test/real` tier, outside the repo's node_modules.
// Usage: bun run scripts/setup-real.ts   (idempotent; prints the path of the `claude` executable)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { installRealCodex } from "./setup-real-codex.ts";
import { installRealGemini } from "./setup-real-gemini.ts";

/** Bump this to move the real tier to another Claude Code release. */
export const REAL_CLAUDE_VERSION = "2.1.332";

const PACKAGE = "@anthropic-ai/claude-code";

/** `<repo>/.cache/real/claude-<version>`: an npm prefix of its own, so the repo lockfile is untouched. */
export function realClaudeDir(repoRoot: string, version: string = REAL_CLAUDE_VERSION): string {
  return join(repoRoot, ".cache", "real", `claude-${version}`);
}

/** The native executable the package's postinstall puts in place of its placeholder. */
export function realClaudeBinPath(repoRoot: string, version: string = REAL_CLAUDE_VERSION): string {
  return binInPrefix(realClaudeDir(repoRoot, version));
}

function installRealClaude(repoRoot: string): string {
  const dir = realClaudeDir(repoRoot);
  const bin = realClaudeBinPath(repoRoot);
  if (existsSync(bin)) return bin;

  // Install into a scratch prefix and rename it into place, so an interrupted install never
  // looks complete to the next run or to findRealClaude().
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
      "--ignore-scripts=false",
      "--loglevel=error",
      `${PACKAGE}@${REAL_CLAUDE_VERSION}`,
    ],
    { stdio: ["ignore", "inherit", "inherit"], cwd: scratch },
  );
  if (npm.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`npm install ${PACKAGE}@${REAL_CLAUDE_VERSION} failed (exit ${npm.status})`);
  }
  const version = spawnSync(binInPrefix(scratch), ["--version"], { encoding: "utf8" });
  if (version.status !== 0 || !version.stdout.includes(REAL_CLAUDE_VERSION)) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`installed claude does not run: ${version.stdout}${version.stderr}`);
  }
  rmSync(dir, { recursive: true, force: true });
  renameSync(scratch, dir);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const mb = (statSync(bin).size / 1e6).toFixed(0);
  console.error(`installed ${PACKAGE}@${REAL_CLAUDE_VERSION} in ${seconds}s (binary ${mb} MB)`);
  return bin;
}

function binInPrefix(prefix: string): string {
  return join(prefix, "node_modules", ...PACKAGE.split("/"), "bin", "claude.exe");
}

if (import.meta.main) {
  try {
    console.log(installRealClaude(resolve(import.meta.dir, "..")));
    console.log(installRealCodex(resolve(import.meta.dir, "..")));
    console.log(installRealGemini(resolve(import.meta.dir, "..")));
  } catch (error) {
    console.error(`setup-real: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
