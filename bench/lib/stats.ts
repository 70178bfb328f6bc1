/** Order statistics for the benchmarks' samples (nearest rank). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return (
    sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN
  );
}

export const median = (samples: readonly number[]) => percentile(samples, 50);

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 1 : 0)} ms`;
}

/** The machine a run measured on: what docs/performance.md records beside each table. */
export async function machine(): Promise<string> {
  const { cpus, loadavg, totalmem } = await import("node:os");
  const load = loadavg()
    .map((l) => l.toFixed(2))
    .join(" ");
  return `${cpus().length} cores (${cpus()[0]?.model ?? "?"}), ${(totalmem() / 2 ** 30).toFixed(0)} GiB, load ${load}, bun ${Bun.version}`;
}
