/**
 * `npm run bench`: every benchmark in one go, each in its own process, one after the other (they
 * share the machine; nothing runs beside them). Each prints ratios measured in its own run; none is
 * asserted anywhere. At the end, one table of all of it (bench/lib/table.ts) with the machine and its
 * load before and after: docs/performance.md holds the latest one beside the previous.
 *
 *   npm run build && npm run setup:real && npm run bench
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { machine } from "./lib/stats.ts";
import { renderTable } from "./lib/table.ts";

const here = import.meta.dir;
if (!existsSync(join(here, "..", "dist", "umbel"))) {
  console.error("bench: dist/umbel is missing: run npm run build first");
  process.exit(2);
}
const BENCHES: [string, string[]][] = [
  ["startup.ts", []],
  ["hook-latency.ts", []],
  // 30 s turns: the first 10 s of a turn are looked at every second, a quiet turn every 5 s after.
  ["fleet.ts", ["50", "30"]],
  ["print.ts", []],
  ["placement.ts", []],
  ["acp.ts", []],
];
const dir = mkdtempSync(join(tmpdir(), "umbel-bench-report-"));
const reportFile = join(dir, "rows.jsonl");
const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: here }).stdout.toString().trim();
const before = await machine();
const started = performance.now();
let failed = 0;
for (const [file, args] of BENCHES) {
  console.log(`\n== bench/${file}`);
  const child = Bun.spawn([process.execPath, "run", join(here, file), ...args], {
    stdout: "inherit",
    stderr: "inherit",
    env: { ...process.env, UMBEL_BENCH_REPORT: reportFile },
  });
  if ((await child.exited) !== 0) {
    failed++;
    console.log(`bench/${file} failed`);
  }
}
const rows = existsSync(reportFile)
  ? readFileSync(reportFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown> & { bench: string })
  : [];
console.log(
  `\n== all of it, at ${commit || "?"} in ${((performance.now() - started) / 60_000).toFixed(1)} min`,
);
console.log(`before: ${before}`);
console.log(`after:  ${await machine()}\n`);
for (const l of renderTable(rows)) console.log(l);
rmSync(dir, { recursive: true, force: true });
process.exit(failed === 0 ? 0 : 1);
