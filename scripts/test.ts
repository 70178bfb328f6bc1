/**
 * `npm test`: build dist/umbel (the e2e tier drives the real binary), then run the whole suite with
 * `bun test`. The real tier skips itself when its CLIs are absent. Slow test files declare their own
 * timeouts, so no --timeout is needed here.
 *
 * With no arguments the files run in 3 worker processes, slowest first by test/timings.json (per-file
 * durations measured on a sequential run): the suite mostly waits on tmux and the CLIs (a sequential
 * run used 0.4 of a core for 22 minutes), so three files at a time fit 2 cores. Every test has its own
 * state root, tmux socket, homes and stub model port, so files never share a worker. Any argument
 * (a file, `-t`, `--parallel=N`) is passed to `bun test` as it is, sequential unless it says otherwise.
 */
const bun = process.execPath;
const build = Bun.spawnSync([bun, "run", "scripts/build.ts"], { stdout: "inherit", stderr: "inherit" });
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
const given = process.argv.slice(2);
const args = given.length > 0 ? given : ["--parallel=3", "--timings=test/timings.json"];
const test = Bun.spawnSync([bun, "test", ...args], {
  stdout: "inherit",
  stderr: "inherit",
  stdin: "ignore",
});
process.exit(test.exitCode ?? 1);
