/**
 * UMBEL_MAX_STARTING's default, measured: K concurrent `umbel spawn` of the real claude (against the
 * stub) under each cap; the time until all are ready, each spawn's own time, and failures.
 * Not part of `npm run bench`.
 *
 *   npm run build && bun run bench/measure/boot-waves.ts [workers=8] [caps=0,1,2,3,4]
 */
import { join } from "node:path";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { setUpClaude } from "../lib/claude-stub.ts";
import { machine, median } from "../lib/stats.ts";

const workers = Number(process.argv[2] ?? 8);
const caps = (process.argv[3] ?? "0,1,2,3,4").split(",");
const umbel = join(import.meta.dir, "..", "..", "dist", "umbel");
const bench = await setUpClaude();
if (!bench) {
  console.error("boot-waves: the real claude is not installed (npm run setup:real)");
  process.exit(2);
}
console.log(`${workers} concurrent claude spawns (${await machine()})`);
try {
  for (const cap of caps) {
    const env = { ...bench.env, UMBEL_HOME: join(bench.dir, `state-${cap}`), UMBEL_MAX_STARTING: cap };
    const started = performance.now();
    const runs = await Promise.all(
      Array.from({ length: workers }, async (_, i) => {
        const t = performance.now();
        const child = Bun.spawn(
          [umbel, "spawn", `w${i}`, "--env", "ANTHROPIC_API_KEY", "--start-timeout", "120s"],
          {
            cwd: bench.dir,
            env,
            stdout: "ignore",
            stderr: "pipe",
          },
        );
        const code = await child.exited;
        return { code, ms: performance.now() - t };
      }),
    );
    const all = performance.now() - started;
    const ok = runs.filter((r) => r.code === 0);
    console.log(
      `cap ${cap === "0" ? "none" : cap.padEnd(4)}  all ready ${(all / 1000).toFixed(1)} s  each median ${(median(ok.map((r) => r.ms)) / 1000).toFixed(1)} s  failed ${workers - ok.length}`,
    );
    await createTmux({ socket: deriveSocket(env.UMBEL_HOME, undefined), hostEnv: env })
      .killServer()
      .catch(() => undefined);
  }
} finally {
  await bench.dispose();
}
