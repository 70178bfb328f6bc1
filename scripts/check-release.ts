// The CI-safe check of a release directory: every artifact is listed in SHA256SUMS with the right
// hash, each binary's header says the format and architecture its name promises (read, never run:
// a Mach-O cannot run on Linux), and each .tar.gz holds exactly that binary as an executable `umbel`.
// Usage: bun run scripts/check-release.ts [DIR]   (default dist/release; exit 1 with the problems)
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { gunzipSync } from "node:zlib";
import { readBinaryFormat } from "./binary-format.ts";
import { parseChecksums, sha256 } from "./checksums.ts";
import { targetByName } from "./release-targets.ts";
import { readTar } from "./tar.ts";

/** The header of a Bun executable is well inside its first 64 KiB. */
const HEADER_BYTES = 64 * 1024;

export type ReleaseCheck = { readonly checked: string[]; readonly problems: string[] };

export function checkRelease(dir: string): ReleaseCheck {
  const sumsPath = join(dir, "SHA256SUMS");
  if (!existsSync(sumsPath)) return { checked: [], problems: [`${sumsPath} is missing`] };
  const problems: string[] = [];
  let sums: Record<string, string>;
  try {
    sums = parseChecksums(readFileSync(sumsPath, "utf8"));
  } catch (error) {
    return { checked: [], problems: [(error as Error).message] };
  }
  const checked: string[] = [];
  for (const [name, expected] of Object.entries(sums)) {
    const path = join(dir, name);
    if (!existsSync(path)) {
      problems.push(`${name}: listed in SHA256SUMS but missing`);
      continue;
    }
    const bytes = new Uint8Array(readFileSync(path));
    if (sha256(bytes) !== expected) problems.push(`${name}: its sha256 is not the one in SHA256SUMS`);
    if (name === "install.sh") {
      if (!new TextDecoder().decode(bytes.subarray(0, 10)).startsWith("#!/bin/sh"))
        problems.push("install.sh: not a POSIX sh script");
      checked.push(name);
      continue;
    }
    const archive = /^umbel-(.+)\.tar\.gz$/.exec(name);
    const target = targetByName(archive?.[1] ?? name.replace(/^umbel-/, ""));
    if (!name.startsWith("umbel-") || !target) {
      problems.push(`${name}: not an artifact of any release target`);
      continue;
    }
    problems.push(...(archive ? checkArchive(name, bytes, sums[`umbel-${target.name}`]) : []));
    if (!archive) {
      const format = readBinaryFormat(bytes.subarray(0, HEADER_BYTES));
      const want = target.format;
      if (format.kind !== want.kind || format.arch !== want.arch || format.libc !== want.libc)
        problems.push(`${name}: is ${describe(format)}, expected ${describe(want)}`);
    }
    checked.push(name);
  }
  for (const name of readdirSync(dir))
    if (name !== "SHA256SUMS" && !(name in sums)) problems.push(`${name}: not listed in SHA256SUMS`);
  return { checked, problems };
}

function checkArchive(name: string, gz: Uint8Array, binarySum: string | undefined): string[] {
  let entries: ReturnType<typeof readTar>;
  try {
    entries = readTar(gunzipSync(gz));
  } catch (error) {
    return [`${name}: not a gzipped tar (${(error as Error).message})`];
  }
  const [only] = entries;
  if (entries.length !== 1 || only?.name !== "umbel" || only.mode !== 0o755)
    return [
      `${name}: must hold exactly one file, an executable umbel (holds ${entries.map((e) => e.name).join(", ") || "nothing"})`,
    ];
  if (binarySum !== undefined && sha256(only.content) !== binarySum)
    return [`${name}: its umbel is not the binary listed beside it`];
  return [];
}

function describe(f: { kind: string; arch: string | null; libc: string | null }): string {
  if (f.kind === "unknown") return "neither ELF nor Mach-O";
  return [f.kind, f.arch ?? "unknown arch", f.libc].filter(Boolean).join(" ");
}

if (import.meta.main) {
  const dir = resolve(process.argv[2] ?? "dist/release");
  const { checked, problems } = checkRelease(dir);
  for (const problem of problems) console.error(`check-release: ${problem}`);
  if (problems.length > 0 || checked.length === 0) {
    if (checked.length === 0 && problems.length === 0)
      console.error(`check-release: ${dir} has no artifacts`);
    process.exit(1);
  }
  console.log(`check-release: ${checked.length} artifacts in ${dir}: checksums, formats and archives ok`);
}
