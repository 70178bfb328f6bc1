// `npm run release`: dist/release/umbel-<os>-<arch> for every release target, a .tar.gz of each
// (one executable `umbel`), install.sh, SHA256SUMS, then the format check (check-release.ts).
// Usage: npm run release -- [--targets linux-x64,darwin-arm64] [--out DIR] [--no-archives] (RELEASE_USAGE)
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { buildDefines, readBuildCommit } from "./build-info.ts";
import { checkRelease } from "./check-release.ts";
import { renderChecksums, sha256 } from "./checksums.ts";
import { COMPILE_FLAGS } from "./compile-flags.ts";
import { RELEASE_TARGETS, type ReleaseTarget, targetByName } from "./release-targets.ts";
import { tarOneFile } from "./tar.ts";

const repo = resolve(import.meta.dir, "..");

export type ReleaseOptions = {
  readonly out: string;
  readonly targets: readonly ReleaseTarget[];
  readonly archives: boolean;
};

export type BuiltTarget = { name: string; seconds: number; binaryBytes: number; archiveBytes: number | null };

export function buildRelease(options: ReleaseOptions): BuiltTarget[] {
  rmSync(options.out, { recursive: true, force: true });
  mkdirSync(options.out, { recursive: true });
  const commit = readBuildCommit(repo, process.env);
  const sums: Record<string, string> = {};
  const built: BuiltTarget[] = [];
  for (const target of options.targets) {
    const started = performance.now();
    const binary = join(options.out, `umbel-${target.name}`);
    compile(target, binary, commit);
    const bytes = new Uint8Array(readFileSync(binary));
    sums[`umbel-${target.name}`] = sha256(bytes);
    let archiveBytes: number | null = null;
    if (options.archives) {
      // SOURCE_DATE_EPOCH (reproducible-builds.org) fixes the archive's timestamp.
      const mtime = Number(process.env.SOURCE_DATE_EPOCH ?? Math.floor(Date.now() / 1000));
      const gz = Bun.gzipSync(tarOneFile("umbel", bytes, { mode: 0o755, mtime }), { level: 6 });
      writeFileSync(`${binary}.tar.gz`, gz);
      sums[`umbel-${target.name}.tar.gz`] = sha256(gz);
      archiveBytes = gz.length;
    }
    built.push({
      name: target.name,
      seconds: (performance.now() - started) / 1000,
      binaryBytes: statSync(binary).size,
      archiveBytes,
    });
  }
  // The installer travels with the artifacts: `curl -fsSL $BASE/install.sh | UMBEL_INSTALL_BASE=$BASE sh`.
  copyFileSync(join(repo, "scripts", "install.sh"), join(options.out, "install.sh"));
  chmodSync(join(options.out, "install.sh"), 0o755);
  sums["install.sh"] = sha256(new Uint8Array(readFileSync(join(options.out, "install.sh"))));
  writeFileSync(join(options.out, "SHA256SUMS"), renderChecksums(sums));
  return built;
}

function compile(target: ReleaseTarget, outfile: string, commit: string): void {
  // Built in a folder of its own: --splitting writes each chunk's map beside the binary (copies of
  // what the executable embeds, so stack traces name src/ lines); only the binary leaves it.
  const scratch = `${outfile}.build`;
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(scratch);
  const result = Bun.spawnSync(
    [
      process.execPath,
      "build",
      ...COMPILE_FLAGS,
      `--target=${target.bunTarget}`,
      ...buildDefines(commit),
      "src/main.ts",
      "--outfile",
      join(scratch, "umbel"),
    ],
    { cwd: repo, stdout: "pipe", stderr: "pipe" },
  );
  if (result.exitCode !== 0) {
    rmSync(scratch, { recursive: true, force: true });
    throw new Error(`bun build --target=${target.bunTarget} failed:\n${result.stderr.toString()}`);
  }
  renameSync(join(scratch, "umbel"), outfile);
  rmSync(scratch, { recursive: true, force: true });
  chmodSync(outfile, 0o755);
}

/** Sizes measured at 9324f00 (Bun 1.4.5): docs/deploy.md has the times. */
export const RELEASE_USAGE = `Usage: npm run release -- [--targets T,…] [--out DIR] [--no-archives]

  --targets T,…    the targets to build, comma separated (default: all):
                   ${RELEASE_TARGETS.map((t) => t.name).join(", ")}
  --out DIR        where the release goes (default dist/release; emptied first)
  --no-archives    the binaries only, no .tar.gz

Each target is a 97-117 MB binary and a 46-57 MB .tar.gz: the full release writes ~970 MB,
one target ~170 MB (npm run release -- --targets linux-x64), ~117 MB with --no-archives.
`;

/** argv → what to build, or "help"; an unknown target throws before anything is built. */
export function parseReleaseArgs(argv: string[]): ReleaseOptions | "help" {
  const { values } = parseArgs({
    args: argv,
    options: {
      out: { type: "string", default: join(repo, "dist", "release") },
      targets: { type: "string" },
      "no-archives": { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  if (values.help) return "help";
  const names = values.targets?.split(",").filter(Boolean);
  const targets = names
    ? names.map((name) => {
        const target = targetByName(name);
        if (!target)
          throw new Error(`unknown target ${name} (${RELEASE_TARGETS.map((t) => t.name).join(", ")})`);
        return target;
      })
    : RELEASE_TARGETS;
  return { out: resolve(values.out), targets, archives: !values["no-archives"] };
}

if (import.meta.main) {
  try {
    const options = parseReleaseArgs(process.argv.slice(2));
    if (options === "help") {
      console.log(RELEASE_USAGE);
      process.exit(0);
    }
    const started = performance.now();
    const built = buildRelease(options);
    const mb = (n: number | null) => (n === null ? "-" : `${(n / 1e6).toFixed(1)} MB`);
    for (const b of built)
      console.error(
        `release: ${b.name.padEnd(17)} ${b.seconds.toFixed(1)}s  ${mb(b.binaryBytes)}  tar.gz ${mb(b.archiveBytes)}`,
      );
    const { checked, problems } = checkRelease(options.out);
    for (const problem of problems) console.error(`release: ${problem}`);
    if (problems.length > 0) process.exit(1);
    console.error(
      `release: ${checked.length} artifacts checked in ${((performance.now() - started) / 1000).toFixed(1)}s`,
    );
    console.log(options.out);
  } catch (error) {
    console.error(`release: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
