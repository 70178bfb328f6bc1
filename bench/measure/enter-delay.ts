/**
 * How soon after the paste the TUI takes Enter (send's `Delivery.enterDelayMs`), measured on the
 * real claude against the stub: for each delay and prompt size, paste a prompt, press Enter once
 * after the delay, and see whether UserPromptSubmit arrives within 1.5 s (else the Enter was
 * swallowed: a real send would re-press it after its 1 s window). Not part of `npm run bench`.
 *
 *   bun run bench/measure/enter-delay.ts [tries=6] [delays=0,15,30,60,120]
 */
import { createDeps } from "../../src/adapters/deps.ts";
import { getProvider } from "../../src/core/providers/registry.ts";
import { countEvents, parseEvents } from "../../src/core/worker/events.ts";
import { spawnWorker } from "../../src/operations/spawn/spawn.ts";
import { waitForTurn } from "../../src/operations/wait/wait.ts";
import { setUpClaude } from "../lib/claude-stub.ts";

const tries = Number(process.argv[2] ?? 6);
const bench = await setUpClaude();
if (!bench) {
  console.error("enter-delay: the real claude is not installed (npm run setup:real)");
  process.exit(2);
}
const deps = createDeps(bench.env, { cwd: bench.dir });
const claude = getProvider("claude");
const sizes = { short: 20, line: 300, long: 4000, huge: 40_000 } as const;
const delays = (process.argv[3] ?? "0,15,30,60,120").split(",").map(Number);

try {
  await spawnWorker(deps, {
    name: "w1",
    provider: "claude",
    env: { ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_API_KEY" } },
  });
  console.log(
    "delay ms  " +
      Object.keys(sizes)
        .map((s) => s.padStart(10))
        .join(""),
  );
  for (const delay of delays) {
    const row: string[] = [];
    for (const [label, size] of Object.entries(sizes)) {
      let taken = 0;
      for (let i = 0; i < tries; i++) {
        const prompt = `enter ${delay} ${label} ${i} `.padEnd(size, "x");
        const baseline = countEvents(await deps.store.readHooksLog("w1"));
        await deps.tmux.sendKeys("w1", ["C-u"]);
        await deps.tmux.paste("w1", claude.preparePrompt(prompt), `m-${delay}-${i}`);
        await Bun.sleep(delay);
        await deps.tmux.sendKeys("w1", ["Enter"]);
        const until = Date.now() + 1500;
        let ok = false;
        while (!ok && Date.now() < until) {
          const events = parseEvents(claude, await deps.store.readHooksLog("w1"), baseline);
          ok = events.some((e) => claude.interpretEvent(e).kind === "submitted");
          if (!ok) await Bun.sleep(20);
        }
        if (ok) {
          taken++;
          await waitForTurn(deps, { name: "w1", after: baseline, timeout: 30_000 });
        } else {
          // Swallowed: clear the box for the next try.
          await deps.tmux.sendKeys("w1", ["C-u", "C-u", "C-u"]);
        }
      }
      row.push(`${taken}/${tries}`.padStart(10));
    }
    console.log(`${String(delay).padStart(8)}  ${row.join("")}`);
  }
} finally {
  await bench.dispose();
}
