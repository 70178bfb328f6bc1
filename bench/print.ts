/**
 * `umbel -p` against the vendor's own non-interactive mode (claude -p, codex exec, gemini -p, opencode run), each
 * on its real CLI and the local stub model, measured in one run (medians, ratios to the vendor's):
 * - cold: a TUI started for the turn, as with no pool;
 * - pooled: a spare of the warm pool claimed (`umbel pool warm 1 --non-interactive` first; the refill it starts is let
 *   finish before the next measurement);
 * - floor: a bare tmux session running the pre-trusted TUI with the prompt to the CLI's own end of
 *   turn (bench/lib/floor.ts; each provider's file in bench/lib/ says how), the least any TUI route can take.
 * Also the memory an idle spare holds (its process tree's RSS). Nothing here is asserted anywhere.
 *
 *   npm run build && npm run setup:real && bun run bench/print.ts [rounds=5] [providers=claude,codex,gemini,opencode]
 */
import { readdirSync, readFileSync } from "node:fs";
import { UMBEL } from "../test/helpers/sandbox.ts";
import { type ProviderBench, setUpProvider } from "./lib/providers.ts";
import { report } from "./lib/report.ts";
import { machine, median, ms } from "./lib/stats.ts";

const rounds = Number(process.argv[2] ?? 5);
const providers = (process.argv[3] ?? "claude,codex,gemini,opencode").split(",") as ProviderBench["id"][];

type Run = { code: number; ms: number; stdout: string; stderr: string };

async function run(argv: string[], env: Record<string, string>, cwd: string): Promise<Run> {
  const started = performance.now();
  const child = Bun.spawn(argv, { cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, ms: performance.now() - started, stdout, stderr };
}

async function timed(argv: string[], env: Record<string, string>, cwd: string): Promise<number> {
  const r = await run(argv, env, cwd);
  if (r.code !== 0 || r.stdout.trim() === "")
    throw new Error(`${argv.slice(0, 3).join(" ")} failed (${r.code}): ${r.stderr.slice(-400)}`);
  return r.ms;
}

/** Until the pool holds a ready spare and nothing of it is still starting (no boot in the background). */
async function poolSettled(b: ProviderBench): Promise<{ name: string } | undefined> {
  for (let i = 0; i < 600; i++) {
    const ls = await run([UMBEL, "pool", "ls", "--json"], b.env, b.cwd);
    const spares = (JSON.parse(ls.stdout) as { spares: { name: string; state: string }[] }).spares;
    if (spares.some((s) => s.state === "ready") && !spares.some((s) => s.state === "starting"))
      return spares.find((s) => s.state === "ready");
    await Bun.sleep(100);
  }
  throw new Error("the pool never settled");
}

/** RSS of a process and every descendant, in MiB (Linux /proc). */
function treeRssMiB(pid: number): number {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(entry)]);
    } catch {}
  }
  let kib = 0;
  const walk = (p: number) => {
    try {
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, "utf8"))?.[1] ?? 0);
    } catch {}
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(pid);
  return kib / 1024;
}

console.log(`umbel -p vs the vendor's own, ${rounds} rounds each (${await machine()})`);
for (const id of providers) {
  const b = await setUpProvider(id);
  if (!b) continue;
  const r = { vendor: [] as number[], floor: [] as number[], cold: [] as number[], pooled: [] as number[] };
  let memory = Number.NaN;
  try {
    const umbel = (prompt: string) => [UMBEL, "-p", prompt, ...b.umbelFlags];
    // One untimed round first: what a CLI does once per home (a first start, a first session) is not
    // a turn's cost.
    const warm = b.vendor("bench warm-up");
    await timed(warm.argv, warm.env, b.cwd);
    if (b.floor) await b.floor(-1);
    await timed(umbel("bench warm-up"), b.env, b.cwd);
    for (let i = 0; i < rounds; i++) {
      // Nothing of the pool runs beside the vendor's run, the floor or a cold turn (an opencode spare
      // builds its state in the background, and shares one database): the last round's refill goes
      // first. Cold also means no spare to claim.
      await run([UMBEL, "pool", "drain"], b.env, b.cwd);
      const vendor = b.vendor(`bench round ${i}`);
      r.vendor.push(await timed(vendor.argv, vendor.env, b.cwd));
      if (b.floor) r.floor.push(await b.floor(i));
      r.cold.push(await timed(umbel(`bench cold ${i}`), b.env, b.cwd));
      // -p's workers are non-interactive (never ask a person): so are the spares it can claim.
      await run([UMBEL, "pool", "warm", "1", "--non-interactive", ...b.umbelFlags], b.env, b.cwd);
      await poolSettled(b);
      r.pooled.push(await timed(umbel(`bench pooled ${i}`), b.env, b.cwd));
      await poolSettled(b);
    }
    const spare = await poolSettled(b);
    const status = await run([UMBEL, "status", spare?.name ?? "", "--json"], b.env, b.cwd);
    const pid = (JSON.parse(status.stdout) as { pid?: number }).pid;
    if (pid) memory = treeRssMiB(pid);
  } finally {
    await run([UMBEL, "pool", "drain"], b.env, b.cwd);
    await b.dispose();
  }
  const v = median(r.vendor);
  const ratio = (xs: number[]) =>
    xs.length ? `${ms(median(xs)).padStart(8)} ×${(median(xs) / v).toFixed(2)}` : "";
  console.log(
    `${id.padEnd(7)} vendor ${ms(v).padStart(8)}   umbel cold ${ratio(r.cold)}   pooled ${ratio(r.pooled)}${r.floor.length ? `   floor ${ratio(r.floor)}` : ""}`,
  );
  console.log(`        an idle spare holds ${memory.toFixed(0)} MiB (its TUI's process tree)`);
  report({
    bench: "print",
    provider: id,
    vendorLabel: b.vendorLabel,
    vendorMs: v,
    coldMs: median(r.cold),
    pooledMs: median(r.pooled),
    floorMs: r.floor.length ? median(r.floor) : null,
    spareMiB: memory,
  });
}
