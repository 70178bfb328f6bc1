import { ms } from "./stats.ts";

/** A row a benchmark reported (bench/lib/report.ts). */
type Row = Record<string, unknown> & { bench: string };

const num = (v: unknown): number => (typeof v === "number" ? v : Number.NaN);
const x = (a: number, b: number) =>
  Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `×${(a / b).toFixed(2)}` : "—";
const line = (what: string, measured: string, goal: string) => `| ${what} | ${measured} | ${goal} |`;

/**
 * `npm run bench`'s closing table, in Markdown (docs/performance.md keeps it as it came): every row
 * a benchmark reported, with its ratio and the goal it is read against (issue 28's goals).
 */
export function renderTable(rows: readonly Row[]): string[] {
  const out = ["| what | measured | goal |", "|---|---|---|"];
  for (const r of rows.filter((r) => r.bench === "print")) {
    const [v, cold, pooled, floor] = [num(r.vendorMs), num(r.coldMs), num(r.pooledMs), num(r.floorMs)];
    const label = `\`${String(r.vendorLabel)}\``;
    out.push(
      line(
        `${r.provider}: cold -p / its floor`,
        Number.isFinite(floor)
          ? `${x(cold, floor)} (${ms(cold)} vs ${ms(floor)})`
          : `${ms(cold)}; no floor measured`,
        "≤ ×1.10",
      ),
      line(`${r.provider}: pooled -p / ${label}`, `${x(pooled, v)} (${ms(pooled)} vs ${ms(v)})`, "≤ ×0.60"),
      line(
        `${r.provider}: cold -p / ${label}; floor / ${label}`,
        `${x(cold, v)}; ${Number.isFinite(floor) ? x(floor, v) : "—"}`,
        "",
      ),
      line(`${r.provider}: an idle spare's memory`, `${num(r.spareMiB).toFixed(0)} MiB`, ""),
    );
  }
  const startup = rows.filter((r) => r.bench === "startup");
  const claude = startup.find((r) => r.label === "claude --version");
  for (const r of startup.filter((r) => String(r.label).startsWith("umbel"))) {
    const wall = num(r.wallMs);
    const floor = num(r.floorMs);
    const vsClaude = claude ? x(wall, num(claude.wallMs)) : "—";
    if (r.label === "umbel --version")
      out.push(line("`umbel --version` / `claude --version`", `${vsClaude} (${ms(wall)})`, "≤ ×1.20"));
    else
      out.push(
        line(
          `\`${r.label}\` / its floor (a compiled Bun hello + its tmux calls)`,
          `${x(wall, floor)} (${ms(wall)} vs ${ms(floor)}; ${vsClaude} of claude --version)`,
          "≤ ×2.00",
        ),
      );
  }
  for (const r of rows.filter((r) => r.bench === "hook-latency"))
    out.push(
      line(
        "end-of-turn hook → `wait` exit, p50 / p99 / max",
        `${ms(num(r.p50Ms))} / ${ms(num(r.p99Ms))} / ${ms(num(r.maxMs))}`,
        "p50 ≤ 10 ms, max ≤ 50 ms",
      ),
    );
  for (const r of rows.filter((r) => r.bench === "fleet-verbs"))
    out.push(
      line(
        `\`ls\` / \`status\` with 1 and ${r.workers} workers`,
        `${ms(num(r.ls1Ms))} → ${ms(num(r.lsNMs))}, ${ms(num(r.status1Ms))} → ${ms(num(r.statusNMs))}`,
        "",
      ),
    );
  for (const r of rows.filter((r) => r.bench === "fleet"))
    out.push(
      line(
        `${r.workers} workers × 1 turn of ${r.turnSeconds} s, ${r.mode}`,
        `${((num(r.waitingCpuMs) / num(r.wallMs)) * 100).toFixed(1)}% of one core while waiting (${(num(r.wallMs) / 1000).toFixed(1)} s wall${num(r.failed) ? `, ${r.failed} failed` : ""})`,
        "≈ 0",
      ),
    );
  for (const r of rows.filter((r) => r.bench === "placement"))
    out.push(line("`spawn --account auto` / `--account NAME`", `${x(num(r.autoMs), num(r.namedMs))}`, ""));
  for (const r of rows.filter((r) => r.bench === "acp"))
    out.push(
      line(
        "ACP `session/prompt` / `send` + `wait`",
        `${x(num(r.acpMs), num(r.verbsMs))} (${ms(num(r.acpMs))} vs ${ms(num(r.verbsMs))})`,
        "",
      ),
    );
  return out;
}
