// Installs the pinned acpx (the Agent Client Protocol's headless CLI client) for the `test/real`
// tier's `umbel acp` files, outside the repo's node_modules: a client the tests drive, not a vendor
// CLI umbel drives, so its pin is here and not in a provider's `tested`.
// Usage: bun run scripts/setup-real-acpx.ts   (idempotent; prints the path of acpx's `dist/cli.js`)
// `npm run setup:real` runs it too (scripts/setup-real.ts).
import { spawnSync } from "node:child_process";
import { join, resolve } from "node:path";
import { installPinned } from "./install-pinned.ts";

/** The pinned release; docs/acp.md ("acpx") records what was measured on it. */
export const REAL_ACPX_VERSION = "0.19.1";

const PACKAGE = "acpx";

/** `<repo>/.cache/real/acpx-<version>`: an npm prefix of its own, so the repo lockfile is untouched. */
function realAcpxDir(repoRoot: string, version: string): string {
  return join(repoRoot, ".cache", "real", `acpx-${version}`);
}

/**
 * The package's bin (`dist/cli.js`, an ES module run with `node`: acpx declares node >= 22.13, and
 * 0.19.1's exec, prompt, cancel and sessions commands run on the machine's node 20 too).
 */
export function realAcpxBinPath(repoRoot: string, version: string = REAL_ACPX_VERSION): string {
  return binInPrefix(realAcpxDir(repoRoot, version));
}

export function installRealAcpx(repoRoot: string): string {
  return installPinned({
    pkg: PACKAGE,
    version: REAL_ACPX_VERSION,
    dir: realAcpxDir(repoRoot, REAL_ACPX_VERSION),
    binIn: binInPrefix,
    check: (bin) => {
      const r = spawnSync("node", [bin, "--version"], { encoding: "utf8" });
      return r.status === 0 && r.stdout.trim() === REAL_ACPX_VERSION ? null : `${r.stdout}${r.stderr}`;
    },
  });
}

function binInPrefix(prefix: string): string {
  return join(prefix, "node_modules", PACKAGE, "dist", "cli.js");
}

if (import.meta.main) {
  try {
    console.log(installRealAcpx(resolve(import.meta.dir, "..")));
  } catch (error) {
    console.error(`setup-real-acpx: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
