/**
 * `npm test`: build dist/umbel (the e2e tier drives the real binary), then run the whole suite with
 * `bun test`. The real tier skips itself when its CLIs are absent. Slow test files declare their own
 * timeouts, so no --timeout is needed here.
 *
 * `UMBEL_TEST_PARALLEL=N` runs the files N at a time, slowest first by test/timings.json (per-file
 * durations measured on a sequential run): the suite mostly waits on tmux and the CLIs (a sequential
 * run used 0.4 of a core for 22 minutes), so three at a time took 11-14 minutes. The default stays
 * one file at a time: at three, the load (4-30 on 2 cores) still finds timing races the sequential
 * run does not (half of the fresh-clone runs at three had one; docs/performance.md). The container
 * image's file runs beside the sequential suite (BESIDE, below). Arguments (a file, `-t`) are
 * passed to `bun test` as they are, one process.
 */
const bun = process.execPath;
const build = Bun.spawnSync([bun, "run", "scripts/build.ts"], { stdout: "inherit", stderr: "inherit" });
if (build.exitCode !== 0) process.exit(build.exitCode ?? 1);
const parallel = process.env.UMBEL_TEST_PARALLEL?.trim();
if (parallel && !/^[1-9][0-9]*$/.test(parallel)) {
  console.error(
    `UMBEL_TEST_PARALLEL must be a whole number of files at a time, not ${JSON.stringify(parallel)}`,
  );
  process.exit(2);
}
const args = [
  ...(parallel ? [`--parallel=${parallel}`, "--timings=test/timings.json"] : []),
  ...process.argv.slice(2),
];
/**
 * Files whose minutes are spent waiting on something other than tmux and the CLIs' timing, run one
 * after another in a second `bun test` beside the sequential suite, so those minutes overlap its
 * idle ones (the sequential suite uses ~0.4 of a core): the container image (debootstrap, podman's
 * build, the npm registry: ~2 min from an empty store), the real claude's own continuation at a
 * usage limit (claude's timer fires 30-90 s after the reset, whatever the load: one test of 60-122
 * s), acpx driving the real claude and codex behind `umbel acp` (~90 s, most of it acpx's own
 * waits: its queue owner's TTL, its 2.5 s after a cancel, its SIGTERM after EOF), and the ACP face's
 * e2e on the fakes (~60 s of worker starts; measured passing 3 of 3 beside acpx's real tier and 3 of
 * 3 at load ~8). Two files run at once at most, as before. Their output is printed once the suite's
 * is, under its own heading. Only for a whole sequential run.
 */
const BESIDE = [
  "test/e2e/image-podman.test.ts",
  "test/real/claude-limits.test.ts",
  "test/real/acp-claude.test.ts",
  "test/real/acp-codex.test.ts",
  "test/e2e/acp.test.ts",
];

if (parallel || process.argv.length > 2) {
  const test = Bun.spawnSync([bun, "test", ...args], {
    stdout: "inherit",
    stderr: "inherit",
    stdin: "ignore",
  });
  process.exit(test.exitCode ?? 1);
}
const files = [...new Bun.Glob("test/**/*.test.ts").scanSync(".")]
  .filter((f) => !BESIDE.includes(f))
  .sort()
  .map((f) => `./${f}`);
const beside = Bun.spawn([bun, "test", ...BESIDE.map((f) => `./${f}`)], {
  stdout: "pipe",
  stderr: "pipe",
  stdin: "ignore",
});
const besideOutput = Promise.all([new Response(beside.stdout).text(), new Response(beside.stderr).text()]);
const main = Bun.spawn([bun, "test", ...files], { stdout: "inherit", stderr: "inherit", stdin: "ignore" });
const mainCode = await main.exited;
const besideCode = await beside.exited;
const [out, err] = await besideOutput;
process.stderr.write(`\n# beside the suite: ${BESIDE.join(" ")} (exit ${besideCode})\n${out}${err}`);
process.exit(mainCode !== 0 ? mainCode : besideCode);

export {};
