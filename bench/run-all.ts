/**
 * `npm run bench`: every benchmark in one go, each in its own process, one after the other (they
 * share the machine; nothing runs beside them). Each prints ratios measured in its own run; none is
 * asserted anywhere. docs/performance.md holds the latest output with the machine it ran on.
 *
 *   npm run build && npm run setup:real && npm run bench
 */
import { existsSync } from "node:fs";
import { join } from "node:path";

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
let failed = 0;
for (const [file, args] of BENCHES) {
  console.log(`\n== bench/${file}`);
  const child = Bun.spawn([process.execPath, "run", join(here, file), ...args], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await child.exited) !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
