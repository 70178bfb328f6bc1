/**
 * A cold (and a pooled) `umbel -p` traced (UMBEL_TRACE=1) on a real CLI against the stub, with the
 * bench's own env (bench/lib/<provider>.ts): the timeline goes to stdout. Not part of `npm run bench`.
 *
 *   npm run build && bun run bench/measure/print-trace.ts [provider=claude] [runs=1] [pooled]
 *
 * TRACE_PROMPT and TRACE_FLAGS (space-separated) change the prompt and add -p flags.
 */
import { UMBEL } from "../../test/helpers/sandbox.ts";
import { type ProviderBench, setUpProvider } from "../lib/providers.ts";

const id = (process.argv[2] ?? "claude") as ProviderBench["id"];
const runs = Number(process.argv[3] ?? 1);
const pooled = process.argv[4] === "pooled";
const b = await setUpProvider(id);
if (!b) {
  console.error(`print-trace: the real ${id} is not installed`);
  process.exit(2);
}

async function run(argv: string[], env: Record<string, string>) {
  const started = performance.now();
  const child = Bun.spawn(argv, { cwd: b?.cwd ?? ".", env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr, ms: performance.now() - started };
}

try {
  for (let i = 0; i < runs; i++) {
    if (b.floor) console.log(`floor ${i}: ${(await b.floor(i)).toFixed(0)} ms`);
    if (pooled) {
      await run([UMBEL, "pool", "warm", "1", "--non-interactive", ...b.umbelFlags], b.env);
      for (let j = 0; j < 300; j++) {
        const ls = JSON.parse((await run([UMBEL, "pool", "ls", "--json"], b.env)).stdout) as {
          spares: { state: string }[];
        };
        if (ls.spares.some((s) => s.state === "ready")) break;
        await Bun.sleep(100);
      }
    }
    const flags = (process.env.TRACE_FLAGS ?? "").split(" ").filter((f) => f !== "");
    const prompt = process.env.TRACE_PROMPT ?? `trace ${i}`;
    const r = await run([UMBEL, "-p", prompt, ...b.umbelFlags, ...flags], { ...b.env, UMBEL_TRACE: "1" });
    console.log(
      `${pooled ? "pooled" : "cold"} ${i}: exit ${r.code} in ${r.ms.toFixed(0)} ms: ${r.stdout.trim()}`,
    );
    console.log(r.stderr);
    await run([UMBEL, "pool", "drain"], b.env);
  }
} finally {
  await b.dispose();
}
