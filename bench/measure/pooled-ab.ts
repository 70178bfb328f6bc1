/**
 * Two umbel binaries' pooled `-p` turns interleaved (A B A B …) on one provider's bench env, with the
 * vendor's own run in every round: medians and ratios, for a change too small for bench/print.ts's
 * noise between separate runs. Not part of `npm run bench`.
 *
 *   bun run bench/measure/pooled-ab.ts A_BIN B_BIN [rounds=6] [provider=codex]
 */
import { type ProviderBench, setUpProvider } from "../lib/providers.ts";
import { median } from "../lib/stats.ts";

const [a, b] = [process.argv[2], process.argv[3]];
if (!a || !b) throw new Error("usage: pooled-ab.ts A_BIN B_BIN [rounds] [provider]");
const rounds = Number(process.argv[4] ?? 6);
const id = (process.argv[5] ?? "codex") as ProviderBench["id"];
const found = await setUpProvider(id);
if (!found) process.exit(2);
const bench: ProviderBench = found;

async function run(argv: string[], extraEnv: Record<string, string> = {}) {
  const started = performance.now();
  const env = { ...bench.env, ...extraEnv };
  const child = Bun.spawn(argv, { cwd: bench.cwd, env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr, ms: performance.now() - started };
}

async function settled(bin: string) {
  for (let i = 0; i < 600; i++) {
    const ls = JSON.parse((await run([bin, "pool", "ls", "--json"])).stdout) as {
      spares: { state: string }[];
    };
    if (ls.spares.some((s) => s.state === "ready") && !ls.spares.some((s) => s.state === "starting")) return;
    await Bun.sleep(100);
  }
  throw new Error("the pool never settled");
}

/** From the -p's own trace (UMBEL_TRACE=1): its Enter to the Stop hook umbel saw, and that Stop to its exit. */
const split = { a: [] as number[][], b: [] as number[][] };
function phases(trace: string): number[] {
  const at = (re: RegExp) => Number(re.exec(trace)?.[1] ?? Number.NaN);
  const enter = at(/pasted[^\n]*\n[^\n]*?\+\s*([\d.]+) ms {2}tmux send-keys/);
  const stop = at(/\+\s*([\d.]+) ms {2}hook Stop/);
  const exit = at(/\+\s*([\d.]+) ms {2}exit /);
  return [enter, stop - enter, exit - stop];
}

async function pooled(bin: string, prompt: string, which?: "a" | "b"): Promise<number> {
  await run([bin, "pool", "drain"]);
  await run([bin, "pool", "warm", "1", "--non-interactive", ...bench.umbelFlags]);
  await settled(bin);
  await Bun.sleep(300);
  const r = await run([bin, "-p", prompt, ...bench.umbelFlags], { UMBEL_TRACE: "1" });
  if (which) split[which].push(phases(r.stderr));
  if (r.code !== 0 || !r.stdout.includes(prompt)) throw new Error(`${bin}: exit ${r.code}: ${r.stdout}`);
  await settled(bin);
  return r.ms;
}

const res = { vendor: [] as number[], a: [] as number[], b: [] as number[] };
try {
  const w = bench.vendor("warm-up");
  await Bun.spawn(w.argv, { cwd: bench.cwd, env: w.env, stdout: "ignore", stderr: "ignore" }).exited;
  await pooled(a, "warm a");
  await pooled(b, "warm b");
  for (let i = 0; i < rounds; i++) {
    const v = bench.vendor(`vendor ${i}`);
    const t = performance.now();
    await Bun.spawn(v.argv, { cwd: bench.cwd, env: v.env, stdout: "ignore", stderr: "ignore" }).exited;
    res.vendor.push(performance.now() - t);
    const [first, second] = i % 2 === 0 ? (["a", "b"] as const) : (["b", "a"] as const);
    res[first].push(await pooled(first === "a" ? a : b, `ab ${first} ${i}`, first));
    res[second].push(await pooled(second === "a" ? a : b, `ab ${second} ${i}`, second));
    console.log(
      `round ${i}: vendor ${res.vendor.at(-1)?.toFixed(0)} a ${res.a.at(-1)?.toFixed(0)} b ${res.b.at(-1)?.toFixed(0)}`,
    );
  }
} finally {
  await run([a, "pool", "drain"]);
  await bench.dispose();
}
const v = median(res.vendor);
const f = (xs: number[]) => `${median(xs).toFixed(0)} ms ×${(median(xs) / v).toFixed(2)}`;
console.log(`vendor ${v.toFixed(0)} ms   A ${f(res.a)}   B ${f(res.b)}`);
for (const k of ["a", "b"] as const) {
  const col = (j: number) =>
    median(split[k].map((p) => p[j] ?? Number.NaN).filter((x) => !Number.isNaN(x))).toFixed(0);
  console.log(
    `${k.toUpperCase()}: start → Enter ${col(0)} ms, Enter → Stop hook ${col(1)} ms, Stop → exit ${col(2)} ms (medians)`,
  );
}
