// The platforms a release is built for: one self-contained executable each (bun build --compile
// cross-compiles; a foreign target's runtime comes from the npm registry, ~1.5 s each, measured).
import type { BinaryFormat } from "./binary-format.ts";

export type ReleaseTarget = {
  /** The artifact is `umbel-<name>` (and `umbel-<name>.tar.gz`); the installer builds the same name. */
  readonly name: string;
  readonly bunTarget: string;
  /** What the header of its binary must say (scripts/check-release.ts). */
  readonly format: BinaryFormat;
};

const target = (name: string, format: BinaryFormat): ReleaseTarget => ({
  name,
  bunTarget: `bun-${name}`,
  format,
});

/**
 * Linux builds link glibc's loader; Alpine and other musl systems cannot run them, so each Linux
 * architecture has a `-musl` build too (scripts/install.sh picks it where `ldd` is musl's).
 */
export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  target("linux-x64", { kind: "elf", arch: "x64", libc: "glibc" }),
  target("linux-arm64", { kind: "elf", arch: "arm64", libc: "glibc" }),
  target("darwin-x64", { kind: "macho", arch: "x64", libc: null }),
  target("darwin-arm64", { kind: "macho", arch: "arm64", libc: null }),
  target("linux-x64-musl", { kind: "elf", arch: "x64", libc: "musl" }),
  target("linux-arm64-musl", { kind: "elf", arch: "arm64", libc: "musl" }),
];

export function targetByName(name: string): ReleaseTarget | undefined {
  return RELEASE_TARGETS.find((t) => t.name === name);
}

/** The target this machine runs (process.platform / process.arch), or undefined when none fits. */
export function hostTarget(platform: string, arch: string, musl: boolean): ReleaseTarget | undefined {
  return targetByName(`${platform}-${arch}${musl ? "-musl" : ""}`);
}
