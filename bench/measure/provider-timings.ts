/**
 * How long the real gemini and opencode take through dist/umbel on the local stub model, as
 * docs/providers.md quotes them: spawn until ready, a first and a second turn (send → wait), `-p` on
 * a fresh (anonymous) worker and on a warm one (`--name`, its second run), and how long the screen
 * took to read idle after the warm-up run ("settle"). One worker at a time; the machine's load is
 * printed beside every round. Not part of `npm run bench`.
 *
 *   npm run build && bun run bench/measure/provider-timings.ts [rounds=3] [providers=gemini,opencode]
 */
import { loadavg } from "node:os";
import { STUB_KEY } from "../../test/helpers/gemini-world.ts";
import { createSandbox, type Sandbox } from "../../test/helpers/sandbox.ts";
import { requireRealGemini } from "../../test/real/real-gemini.ts";
import { requireRealOpencode, stubOpencodeEnv } from "../../test/real/real-opencode.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";
import { machine, median } from "../lib/stats.ts";

type Id = "gemini" | "opencode";
const rounds = Number(process.argv[2] ?? 3);
const providers = (process.argv[3] ?? "gemini,opencode").split(",") as Id[];
const STEPS = ["spawn", "turn 1", "turn 2", "-p fresh", "settle", "-p warm"] as const;

for (const id of providers) {
  const bin =
    id === "gemini" ? requireRealGemini("provider-timings") : requireRealOpencode("provider-timings");
  if (!bin) continue;
  const stub = await startStubModel({ dialect: id === "gemini" ? "gemini" : "openai-chat" });
  const sb = await createSandbox({ untrusted: id === "gemini" });
  Object.assign(
    sb.env,
    id === "gemini"
      ? { UMBEL_GEMINI_BIN: bin, GEMINI_API_KEY: STUB_KEY, GOOGLE_GEMINI_BASE_URL: stub.url }
      : { UMBEL_OPENCODE_BIN: bin, ...stubOpencodeEnv(stub.url) },
  );
  const samples = new Map<string, number[]>(STEPS.map((s) => [s, []]));
  console.log(`${id}: ${rounds} rounds on ${await machine()}`);
  try {
    for (let i = 0; i < rounds; i++) {
      const took = await round(sb, id, i);
      for (const [step, ms] of Object.entries(took)) samples.get(step)?.push(ms);
      const load = loadavg()
        .map((l) => l.toFixed(1))
        .join(" ");
      console.log(
        `  round ${i + 1}: ${STEPS.map((s) => `${s} ${seconds(took[s] ?? Number.NaN)}`).join(" · ")} (load ${load})`,
      );
    }
    for (const step of STEPS) {
      const all = (samples.get(step) ?? []).filter((ms) => !Number.isNaN(ms));
      if (all.length === 0) {
        console.log(`  ${step.padEnd(9)} failed every round`);
        continue;
      }
      console.log(
        `  ${step.padEnd(9)} median ${seconds(median(all))}, ${seconds(Math.min(...all))}–${seconds(Math.max(...all))} (${all.length} of ${rounds})`,
      );
    }
  } finally {
    await sb.dispose();
    await stub.stop();
  }
}

/** One round's times by step; a step that failed is NaN, and its error is printed. */
async function round(sb: Sandbox, id: Id, i: number): Promise<Record<string, number>> {
  const provider = ["--provider", id];
  const took: Record<string, number> = {};
  const timed = async (step: string, args: string[], stdin?: string) => {
    const started = performance.now();
    const r = await sb.umbel(args, stdin === undefined ? {} : { stdin });
    took[step] = (took[step] ?? 0) + performance.now() - started;
    if (r.code === 0 && (step === "spawn" || r.stdout.trim() !== "")) return r.stdout;
    took[step] = Number.NaN;
    console.log(
      `  ${step}: umbel ${args.join(" ")} → ${r.code} ${JSON.stringify(r.stdout.slice(0, 80))} ${r.stderr.trim()}`,
    );
    return null;
  };
  const name = `t${i}`;
  if ((await timed("spawn", ["spawn", name, ...provider, "--start-timeout", "180s"])) !== null)
    for (const turn of ["turn 1", "turn 2"]) {
      const baseline = (await timed(turn, ["send", name], `say hello ${turn}`))?.trim();
      if (baseline) await timed(turn, ["wait", name, "--after", baseline, "--timeout", "120s"]);
      await settle(sb, name);
    }
  await sb.umbel(["kill", name, "--purge"]);
  await timed("-p fresh", ["-p", ...provider, "print it"]);
  const warm = `w${i}`;
  await sb.umbel(["spawn", warm, ...provider, "--start-timeout", "180s"]);
  await sb.umbel(["-p", ...provider, "--name", warm, "warm up"]);
  took.settle = await settle(sb, warm);
  await timed("-p warm", ["-p", ...provider, "--name", warm, "print it again"]);
  await sb.umbel(["kill", warm, "--purge"]);
  return took;
}

/**
 * Waits until status says idle (a minute at most) and returns how long that took: a loaded
 * opencode draws the end of a turn seconds after its record ended it, and send refuses a busy screen.
 */
async function settle(sb: Sandbox, name: string): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < 60_000) {
    const r = await sb.umbel(["status", name, "--json"]);
    if (r.code !== 0 || JSON.parse(r.stdout).state === "idle") break;
  }
  return performance.now() - started;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
