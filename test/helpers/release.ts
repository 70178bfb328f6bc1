import { mkdirSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { renderChecksums, sha256 } from "../../scripts/checksums.ts";
import { hostTarget, type ReleaseTarget } from "../../scripts/release-targets.ts";
import { tarOneFile } from "../../scripts/tar.ts";
import { REPO } from "./sandbox.ts";

/** This machine's release target (a musl loader in /lib means an Alpine-like system). */
export function thisTarget(): ReleaseTarget {
  const musl = process.platform === "linux" && readdirSync("/lib").some((n) => n.startsWith("ld-musl"));
  const target = hostTarget(process.platform, process.arch, musl);
  if (!target) throw new Error(`no release target for ${process.platform}-${process.arch}`);
  return target;
}

/**
 * A foreign target's runtime comes from the npm registry (~35 MB each); tests run under a throwaway
 * HOME (test/preload.ts), so they keep the runtimes in the repo's .cache instead of ~/.bun.
 */
export function runtimeCacheEnv(): Record<string, string> {
  return { BUN_INSTALL_CACHE_DIR: process.env.BUN_INSTALL_CACHE_DIR ?? join(REPO, ".cache", "bun-runtimes") };
}

/** Runs scripts/release.ts; throws with its stderr when it fails. */
export async function runRelease(args: readonly string[]): Promise<string> {
  const child = Bun.spawn([process.execPath, "run", join(REPO, "scripts", "release.ts"), ...args], {
    cwd: REPO,
    env: { ...process.env, ...runtimeCacheEnv() },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
  ]);
  if ((await child.exited) !== 0) throw new Error(`scripts/release.ts ${args.join(" ")} failed:\n${err}`);
  return `${out}${err}`;
}

let hostBuild: Promise<string> | undefined;

/**
 * The release of this machine's target (binary, .tar.gz, SHA256SUMS) in a temp dir, built once per
 * test process (~4 s: the compile, then gzip of ~110 MB) and shared by the release, installer and
 * image tests; removed when the process exits.
 */
export function hostRelease(): Promise<string> {
  hostBuild ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), "umbel-release-"));
    // An exit handler runs no async work: rmSync, or ~160 MB stays in the temp dir per run.
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    const out = join(dir, "release");
    await runRelease(["--out", out, "--targets", thisTarget().name]);
    return out;
  })();
  return hostBuild;
}

/**
 * A release of small synthetic artifacts, packed as the real one is: each `umbel` is a script that
 * prints `synthetic <target>`. For the installer's paths that do not need a 110 MB binary (each real
 * install moves ~50 MB down and ~110 MB onto disk: 3-8 s on a busy 2-core machine).
 */
export function syntheticRelease(dir: string, targets: readonly string[]): void {
  mkdirSync(dir, { recursive: true });
  const sums: Record<string, string> = {};
  for (const name of targets) {
    const bytes = new TextEncoder().encode(`#!/bin/sh\necho "synthetic ${name}"\n`);
    const gz = Bun.gzipSync(tarOneFile("umbel", bytes, { mode: 0o755, mtime: 0 }));
    writeFileSync(join(dir, `umbel-${name}.tar.gz`), gz);
    sums[`umbel-${name}`] = sha256(bytes);
    sums[`umbel-${name}.tar.gz`] = sha256(gz);
  }
  writeFileSync(join(dir, "SHA256SUMS"), renderChecksums(sums));
}
