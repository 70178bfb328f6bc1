import { appendFileSync } from "node:fs";

/**
 * One measured row for `npm run bench`'s closing table (bench/run-all.ts): appended as a JSON line to
 * the file run-all names in UMBEL_BENCH_REPORT. A bench run on its own (no variable) only prints.
 */
export function report(row: Record<string, unknown>): void {
  const file = process.env.UMBEL_BENCH_REPORT;
  if (file) appendFileSync(file, `${JSON.stringify(row)}\n`);
}
