/**
 * `npm run build`: one self-contained binary, dist/umbel (bun build --compile). The hook scripts are
 * text imports, so they travel inside it; the commit is embedded for `umbel --version`. With
 * `--splitting` bun also writes each chunk's source map beside the binary; the binary embeds its
 * own (stack traces name src/ lines), so those copies are removed rather than left to pile up.
 */
import { readdirSync, rmSync } from "node:fs";
import { join, resolve } from "node:path";
import { buildDefines, readBuildCommit } from "./build-info.ts";
import { COMPILE_FLAGS } from "./compile-flags.ts";

const repo = resolve(import.meta.dir, "..");
const dist = join(repo, "dist");
const chunkMaps = () => {
  try {
    for (const f of readdirSync(dist)) if (/\.js\.map$/.test(f)) rmSync(join(dist, f), { force: true });
  } catch {}
};
chunkMaps();
const result = Bun.spawnSync(
  [
    process.execPath,
    "build",
    ...COMPILE_FLAGS,
    ...buildDefines(readBuildCommit(repo, process.env)),
    "src/main.ts",
    "--outfile",
    "dist/umbel",
  ],
  { cwd: repo, stdout: "inherit", stderr: "inherit" },
);
chunkMaps();
process.exit(result.exitCode ?? 1);
