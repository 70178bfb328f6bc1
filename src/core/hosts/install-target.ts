import { UsageError } from "../errors.ts";

/**
 * Which umbel a host runs (`umbel hosts install`): the release targets by name, as
 * scripts/release-targets.ts builds them (`umbel-<target>`; a unit test holds the two lists equal),
 * and how a machine's `uname -sm` and libc name one. Pure.
 */

export const RELEASE_TARGETS = [
  "linux-x64",
  "linux-arm64",
  "darwin-x64",
  "darwin-arm64",
  "linux-x64-musl",
  "linux-arm64-musl",
] as const;
export type ReleaseTarget = (typeof RELEASE_TARGETS)[number];

/** What a host's probe said of its machine. */
export type RemotePlatform = {
  /** `uname -sm`: "Linux x86_64", "Darwin arm64". */
  readonly uname: string;
  /** Its libc is musl's (Alpine): the glibc build cannot run there. */
  readonly musl: boolean;
  /** A macOS shell under Rosetta 2 (`sysctl.proc_translated` = 1): the machine is arm64. */
  readonly translated: boolean;
};

/** `uname -sm` (and libc, Rosetta) → the release target, as scripts/install.sh picks it. */
export function targetOfUname(host: string, platform: RemotePlatform): ReleaseTarget {
  const [system = "", machine = ""] = platform.uname.trim().split(/\s+/);
  const os = system === "Linux" ? "linux" : system === "Darwin" ? "darwin" : null;
  let arch =
    machine === "x86_64" || machine === "amd64"
      ? "x64"
      : machine === "aarch64" || machine === "arm64"
        ? "arm64"
        : null;
  if (os === "darwin" && arch === "x64" && platform.translated) arch = "arm64";
  const target = os && arch ? targetOf(os, arch, os === "linux" && platform.musl) : null;
  if (!target)
    throw new UsageError(
      `host ${host} is ${platform.uname.trim() || "an unknown platform"}: umbel ships for Linux and macOS on x86_64 and arm64`,
      { host, uname: platform.uname.trim() },
    );
  return target;
}

/** This process's target (process.platform, process.arch, libc), or null when no release is one. */
export function targetOf(os: string, arch: string, musl: boolean): ReleaseTarget | null {
  const name = `${os}-${arch}${musl ? "-musl" : ""}`;
  return RELEASE_TARGETS.find((t) => t === name) ?? null;
}

/** The file of a release directory that holds a target's binary (scripts/release.ts). */
function releaseFile(target: ReleaseTarget): string {
  return `umbel-${target}`;
}

/**
 * SHA256SUMS (sha256sum's own `<hex>  <name>`, or `<hex> *<name>`) by file name. A line of another
 * shape is a usage error naming it: a damaged list is never half-believed.
 */
export function parseSha256Sums(text: string, file: string): Record<string, string> {
  const sums: Record<string, string> = {};
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    const m = /^([0-9a-f]{64}) [ *](\S+)$/.exec(line.trim());
    if (!m?.[1] || !m[2])
      throw new UsageError(`${file}:${i + 1}: not a "<sha256>  <name>" line: ${line.slice(0, 120)}`, {
        file,
        line: i + 1,
      });
    sums[m[2]] = m[1];
  });
  return sums;
}

/**
 * The binary of `target` in a release directory and the sum its SHA256SUMS lists. None there is a
 * usage error naming the host's target and the binaries the directory does hold.
 */
export function findReleaseFile(
  host: string,
  target: ReleaseTarget,
  dir: string,
  sums: Readonly<Record<string, string>>,
): { file: string; sha256: string } {
  const file = releaseFile(target);
  const sha256 = sums[file];
  if (sha256 === undefined) {
    const held = Object.keys(sums).filter((f) => /^umbel-[a-z0-9-]+$/.test(f));
    throw new UsageError(
      `host ${host} is ${target}: ${dir}/SHA256SUMS lists no ${file} (it holds ${held.length > 0 ? held.join(", ") : "no umbel binary"}); build it with npm run release -- --targets ${target}`,
      { host, target, dir, held },
    );
  }
  return { file, sha256 };
}
