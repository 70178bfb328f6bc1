// Installs the pinned real Claude Code CLI for the `test/real` tier, outside the repo's node_modules.
// Usage: bun run scripts/setup-real.ts   (idempotent; prints the path of each installed executable)
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { TESTED_CLIS } from "../src/core/doctor/tested-versions.ts";
import { installPinned } from "./install-pinned.ts";
import { installRealAcpx } from "./setup-real-acpx.ts";
import { installRealCodex } from "./setup-real-codex.ts";
import { installRealGemini } from "./setup-real-gemini.ts";
import { installRealOpencode } from "./setup-real-opencode.ts";

/** The pinned release (bump it in the provider's `tested`, src/core/providers/<name>/provider.ts: `umbel doctor` compares against it). */
export const REAL_CLAUDE_VERSION = TESTED_CLIS.claude.version;

const PACKAGE = TESTED_CLIS.claude.npm;

/** `<repo>/.cache/real/claude-<version>`: an npm prefix of its own, so the repo lockfile is untouched. */
export function realClaudeDir(repoRoot: string, version: string = REAL_CLAUDE_VERSION): string {
  return join(repoRoot, ".cache", "real", `claude-${version}`);
}

/** The native executable the package's postinstall puts in place of its placeholder. */
export function realClaudeBinPath(repoRoot: string, version: string = REAL_CLAUDE_VERSION): string {
  return binInPrefix(realClaudeDir(repoRoot, version));
}

export function installRealClaude(repoRoot: string): string {
  return installPinned({
    pkg: PACKAGE,
    version: REAL_CLAUDE_VERSION,
    dir: realClaudeDir(repoRoot),
    binIn: binInPrefix,
    check: (bin) => {
      const r = spawnSync(bin, ["--version"], { encoding: "utf8" });
      return r.status === 0 && r.stdout.includes(REAL_CLAUDE_VERSION) ? null : `${r.stdout}${r.stderr}`;
    },
  });
}

function binInPrefix(prefix: string): string {
  return join(prefix, "node_modules", ...PACKAGE.split("/"), "bin", "claude.exe");
}

if (import.meta.main) {
  try {
    console.log(installRealClaude(resolve(import.meta.dir, "..")));
    console.log(installRealCodex(resolve(import.meta.dir, "..")));
    console.log(installRealGemini(resolve(import.meta.dir, "..")));
    console.log(installRealOpencode(resolve(import.meta.dir, "..")));
    console.log(installRealAcpx(resolve(import.meta.dir, "..")));
  } catch (error) {
    console.error(`setup-real: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
