/**
 * The first prompt straight after spawn returns ready (what `umbel -p` does): does claude take an
 * Enter pressed `delay` ms after the paste, or swallow it (a real send would then wait out its 1 s
 * confirm window and press again)? Each try is a fresh worker. Not part of `npm run bench`.
 *
 *   bun run bench/measure/first-enter.ts [tries=8] [delays=0,10,120]
 */
import { createDeps } from "../../src/adapters/deps.ts";
import { getProvider } from "../../src/core/providers/registry.ts";
import { countEvents, parseEvents } from "../../src/core/worker/events.ts";
import { spawnWorker } from "../../src/operations/spawn/spawn.ts";
import { killWorker } from "../../src/operations/worker/kill.ts";
import { setUpClaude } from "../lib/claude-stub.ts";

const tries = Number(process.argv[2] ?? 8);
const delays = (process.argv[3] ?? "0,10,120").split(",").map(Number);
const bench = await setUpClaude();
if (!bench) {
  console.error("first-enter: the real claude is not installed (npm run setup:real)");
  process.exit(2);
}
const deps = createDeps(bench.env, { cwd: bench.dir });
const claude = getProvider("claude");
try {
  for (const delay of delays) {
    const took: number[] = [];
    let swallowed = 0;
    for (let i = 0; i < tries; i++) {
      const name = `f${delay}-${i}`;
      await spawnWorker(deps, {
        name,
        provider: "claude",
        env: { ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_API_KEY" } },
      });
      const baseline = countEvents(await deps.store.readHooksLog(name));
      await deps.tmux.sendKeys(name, ["C-u"]);
      await deps.tmux.paste(name, claude.preparePrompt(`first enter ${delay} ${i}`), `m-${name}`);
      await Bun.sleep(delay);
      const entered = performance.now();
      await deps.tmux.sendKeys(name, ["Enter"]);
      const until = Date.now() + 1500;
      let ok = false;
      while (!ok && Date.now() < until) {
        const events = parseEvents(claude, await deps.store.readHooksLog(name), baseline);
        ok = events.some((e) => claude.interpretEvent(e).kind === "submitted");
        if (!ok) await Bun.sleep(5);
      }
      if (ok) took.push(performance.now() - entered);
      else swallowed++;
      await killWorker(deps, { name, purge: true });
    }
    const sorted = took.sort((a, b) => a - b);
    console.log(
      `delay ${String(delay).padStart(4)} ms: taken ${took.length}/${tries}, swallowed ${swallowed}; Enter → UserPromptSubmit median ${(sorted[sorted.length >> 1] ?? 0).toFixed(0)} ms`,
    );
  }
} finally {
  await bench.dispose();
}
