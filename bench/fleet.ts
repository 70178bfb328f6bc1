/**
 * A fleet on the fake claude (test/fixtures/fake-claude.sh), measured in one run, ratios not asserted:
 * - `ls` and `status` with 1 and with 50 workers (median of 7; umbel reads each worker's state);
 * - 50 workers × 1 turn of 10 s waited on by ONE `umbel wait --all` (wall time and that process's
 *   CPU, start-up apart), and by 50 `umbel wait` processes (their CPU summed).
 *
 *   npm run build && bun run bench/fleet.ts [workers=50] [turnSeconds=10]
 */
import { createSandbox, type Sandbox, UMBEL } from "../test/helpers/sandbox.ts";
import { report } from "./lib/report.ts";
import { machine, median, ms } from "./lib/stats.ts";

const workers = Number(process.argv[2] ?? 50);
const turnSeconds = Number(process.argv[3] ?? 10);

type Run = { code: number; wallMs: number; cpuMs: number; stdout: string; stderr: string; args: string[] };

async function run(sb: Sandbox, args: string[]): Promise<Run> {
  const started = performance.now();
  const child = Bun.spawn([UMBEL, ...args], { cwd: sb.work, env: sb.env, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  const usage = child.resourceUsage();
  const cpuMs = usage ? Number(usage.cpuTime.user + usage.cpuTime.system) / 1000 : Number.NaN;
  return { code, wallMs: performance.now() - started, cpuMs, stdout, stderr, args };
}

/** Each failed call of a step, with its exit code and the first line of its stderr; the bench goes on. */
function failures(step: string, runs: readonly Run[]): number {
  const failed = runs.filter((r) => r.code !== 0);
  for (const r of failed.slice(0, 5))
    console.log(
      `  ${step}: umbel ${r.args.join(" ").slice(0, 60)} → exit ${r.code}: ${r.stderr.split("\n")[0] ?? ""}`,
    );
  if (failed.length > 5) console.log(`  ${step}: ${failed.length - 5} more failed`);
  return failed.length;
}

async function timed(sb: Sandbox, args: string[], rounds = 7): Promise<number> {
  const walls: number[] = [];
  for (let i = 0; i < rounds; i++) walls.push((await run(sb, args)).wallMs);
  return median(walls);
}

const names = Array.from({ length: workers }, (_, i) => `w${i}`);
// The fake starts in ~0.3 s; 8 at a time keeps this bench about umbel, not the boot waves.
const sb = await createSandbox({ env: { UMBEL_MAX_STARTING: "8", FAKE_CLAUDE_SWALLOW_MS: "0" } });
try {
  console.log(`fleet on the fake claude (${await machine()})`);
  failures("spawn", [await run(sb, ["spawn", "w0"])]);
  const one = { ls: await timed(sb, ["ls"]), status: await timed(sb, ["status", "w0"]) };
  failures("spawn", await Promise.all(names.slice(1).map((name) => run(sb, ["spawn", name]))));
  const ls50 = await timed(sb, ["ls"]);
  const status50 = await timed(sb, ["status"]);
  report({
    bench: "fleet-verbs",
    workers,
    ls1Ms: one.ls,
    lsNMs: ls50,
    status1Ms: one.status,
    statusNMs: status50,
  });
  console.log(
    `ls       1 worker ${ms(one.ls).padStart(8)}   ${workers} workers ${ms(ls50).padStart(8)}  (×${(ls50 / one.ls).toFixed(1)})`,
  );
  console.log(
    `status   1 worker ${ms(one.status).padStart(8)}   ${workers} workers ${ms(status50).padStart(8)}  (status with no name: the fleet)`,
  );

  // A wait whose turn has already ended: what one wait's start-up and reads cost, without waiting.
  await run(sb, ["send", "w0", "fake:reply done"]);
  await run(sb, ["wait", "w0"]);
  const idle = await run(sb, ["wait", "w0"]);
  for (const mode of ["one wait --all", `${workers} waits`] as const) {
    failures(
      "send",
      await Promise.all(names.map((name) => run(sb, ["send", name, `fake:slow ${turnSeconds * 1000}`]))),
    );
    const started = performance.now();
    const waits =
      mode === "one wait --all"
        ? [await run(sb, ["wait", "--all", ...names])]
        : await Promise.all(names.map((name) => run(sb, ["wait", name])));
    const wall = performance.now() - started;
    const cpu = waits.reduce((sum, w) => sum + w.cpuMs, 0);
    const failed = failures(mode, waits);
    // The waits' own start-up (one finished wait each) is not waiting.
    const waiting = cpu - waits.length * idle.cpuMs;
    report({ bench: "fleet", mode, workers, turnSeconds, wallMs: wall, waitingCpuMs: waiting, failed });
    console.log(
      `${workers} × 1 turn of ${turnSeconds} s, ${mode.padEnd(14)} wall ${(wall / 1000).toFixed(1)} s  umbel CPU ${ms(cpu)} (${ms(waiting)} while waiting: ${((waiting / wall) * 100).toFixed(1)}% of one core)${failed ? `  failed ${failed}` : ""}`,
    );
  }
} finally {
  await sb.dispose();
}
