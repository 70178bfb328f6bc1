// One pinned npm package installed into a prefix of its own under .cache/real/ (the real tier's
// vendor CLIs), never into the repo's node_modules or lockfile. Shared by the setup-real scripts.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";

export type PinnedPackage = {
  readonly pkg: string;
  readonly version: string;
  /** The final prefix, e.g. .cache/real/claude-2.1.332. */
  readonly dir: string;
  /** The executable inside a prefix (the scratch one while checking, then the final one). */
  readonly binIn: (prefix: string) => string;
  /** Runs the freshly installed executable; returns an error text, or null when it works. */
  readonly check: (bin: string) => string | null;
};

/** Idempotent: returns the executable's path, installing first when it is missing. */
export function installPinned(p: PinnedPackage): string {
  const bin = p.binIn(p.dir);
  if (existsSync(bin)) return bin;
  // Install into a scratch prefix and rename it into place, so an interrupted install never looks
  // complete to the next run or to the tests' finders.
  const scratch = `${p.dir}.partial-${process.pid}`;
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
      `${p.pkg}@${p.version}`,
    ],
    { stdio: ["ignore", "inherit", "inherit"], cwd: scratch },
  );
  if (npm.status !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`npm install ${p.pkg}@${p.version} failed (exit ${npm.status})`);
  }
  const problem = p.check(p.binIn(scratch));
  if (problem !== null) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`installed ${p.pkg}@${p.version} does not run: ${problem}`);
  }
  rmSync(p.dir, { recursive: true, force: true });
  renameSync(scratch, p.dir);
  console.error(`installed ${p.pkg}@${p.version} in ${((performance.now() - started) / 1000).toFixed(1)}s`);
  return bin;
}
