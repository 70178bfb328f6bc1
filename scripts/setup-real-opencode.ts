// Installs the pinned real opencode CLI for the `test/real` tier, outside the repo's node_modules.
// Usage: bun run scripts/setup-real-opencode.ts   (idempotent; prints the path of the `opencode` executable)
// `npm run setup:real` runs it too (scripts/setup-real.ts).
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { TESTED_CLIS } from "../src/core/doctor/tested-versions.ts";
import { installPinned } from "./install-pinned.ts";

/** The pinned release (bump it in the provider's `tested`, src/core/providers/<name>/provider.ts: `umbel doctor` compares against it). */
export const REAL_OPENCODE_VERSION = TESTED_CLIS.opencode.version;

const PACKAGE = TESTED_CLIS.opencode.npm;

/** `<repo>/.cache/real/opencode-<version>`: an npm prefix of its own, so the repo lockfile is untouched. */
export function realOpencodeDir(repoRoot: string, version: string = REAL_OPENCODE_VERSION): string {
  return join(repoRoot, ".cache", "real", `opencode-${version}`);
}

/**
 * The native executable the package's postinstall hard-links from the platform package
 * (`opencode-linux-x64`, an optional dependency) to `bin/opencode.exe`: one Bun-compiled binary.
 */
export function realOpencodeBinPath(repoRoot: string, version: string = REAL_OPENCODE_VERSION): string {
  return binInPrefix(realOpencodeDir(repoRoot, version));
}

export function installRealOpencode(repoRoot: string): string {
  return installPinned({
    pkg: PACKAGE,
    version: REAL_OPENCODE_VERSION,
    dir: realOpencodeDir(repoRoot),
    binIn: binInPrefix,
    check: (bin) => {
      // A throwaway HOME and XDG dirs: even --version may create opencode's dirs.
      const home = mkdtempSync(join(tmpdir(), "umbel-opencode-version-"));
      const r = spawnSync(bin, ["--version"], {
        encoding: "utf8",
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: home,
          XDG_CONFIG_HOME: join(home, "config"),
          XDG_DATA_HOME: join(home, "data"),
          XDG_STATE_HOME: join(home, "state"),
          XDG_CACHE_HOME: join(home, "cache"),
        },
      });
      rmSync(home, { recursive: true, force: true });
      return r.status === 0 && r.stdout.trim() === REAL_OPENCODE_VERSION ? null : `${r.stdout}${r.stderr}`;
    },
  });
}

function binInPrefix(prefix: string): string {
  return join(prefix, "node_modules", PACKAGE, "bin", "opencode.exe");
}

if (import.meta.main) {
  try {
    console.log(installRealOpencode(resolve(import.meta.dir, "..")));
  } catch (error) {
    console.error(`setup-real-opencode: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
