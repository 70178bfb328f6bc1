/**
 * `npm run build`: one self-contained binary, dist/umbel (bun build --compile). The hook scripts are
 * text imports, so they travel inside it.
 */
const result = Bun.spawnSync(
  [
    process.execPath,
    "build",
    "--compile",
    "--minify",
    "--keep-names",
    "--sourcemap",
    "src/main.ts",
    "--outfile",
    "dist/umbel",
  ],
  { stdout: "inherit", stderr: "inherit" },
);
process.exit(result.exitCode ?? 1);
