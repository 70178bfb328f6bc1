/**
 * `npm run build`: one self-contained binary, dist/umbel (bun build --compile). The hook scripts are
 * text imports, so they travel inside it; the commit is embedded for `umbel --version`.
 */
import { resolve } from "node:path";
import { buildDefines, readBuildCommit } from "./build-info.ts";
import { COMPILE_FLAGS } from "./compile-flags.ts";

const repo = resolve(import.meta.dir, "..");
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
process.exit(result.exitCode ?? 1);
