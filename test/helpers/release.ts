import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readBuildCommit } from "../../scripts/build-info.ts";
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
function runtimeCacheEnv(): Record<string, string> {
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
 * The release of this machine's target (binary, .tar.gz, install.sh, SHA256SUMS), shared by the
 * release, installer and image tests. Built at most once per source tree (~4 s: the compile, then
 * gzip of ~110 MB; more on a busy machine) into `$TMPDIR/umbel-release-<key>`, where the key is the
 * commit it embeds and the sources; a later run of the same tree reuses it, and builds of other
 * trees are removed. (bun test runs no process exit handlers, so a temp dir per run would leak.)
 */
export function hostRelease(): Promise<string> {
  hostBuild ??= (async () => {
    const key = sha256(
      new TextEncoder().encode(`${readBuildCommit(REPO, process.env)}\n${sourceDigest()}`),
    ).slice(0, 16);
    const dir = join(tmpdir(), `umbel-release-${key}`);
    const out = join(dir, "release");
    if (existsSync(join(out, "SHA256SUMS"))) return out;
    for (const stale of readdirSync(tmpdir()).filter(
      (n) => n.startsWith("umbel-release-") && !n.includes(key),
    ))
      rmSync(join(tmpdir(), stale), { recursive: true, force: true });
    const partial = `${dir}.partial-${process.pid}`;
    await runRelease(["--out", join(partial, "release"), "--targets", thisTarget().name]);
    try {
      renameSync(partial, dir);
    } catch (error) {
      // Another test process (scripts/test.ts runs one beside the suite) built the same release first.
      if (!existsSync(join(out, "SHA256SUMS"))) throw error;
      rmSync(partial, { recursive: true, force: true });
    }
    return out;
  })();
  return hostBuild;
}

/** What a build is made of: every file under src/, hooks/ and scripts/, and package.json. */
function sourceDigest(): string {
  const files: string[] = [join(REPO, "package.json")];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.push(path);
    }
  };
  for (const dir of ["src", "hooks", "scripts"]) walk(join(REPO, dir));
  return sha256(
    new TextEncoder().encode(
      files
        .sort()
        .map((f) => `${f}\0${sha256(readFileSync(f))}`)
        .join("\n"),
    ),
  );
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
