/**
 * `npm test`: build dist/umbel (the e2e tier drives the real binary), then run the whole suite with
 * `bun test` (extra arguments pass through). The real tier skips itself when its CLIs are absent.
 * Slow test files declare their own timeouts, so no --timeout is needed here.
 */
const bun = process.execPath;
const build = Bun.spawnSync([bun, "run", "scripts/build.ts"], { stdout: "inherit", stderr: "inherit" });
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
const test = Bun.spawnSync([bun, "test", ...process.argv.slice(2)], {
  stdout: "inherit",
  stderr: "inherit",
  stdin: "ignore",
});
process.exit(test.exitCode ?? 1);
