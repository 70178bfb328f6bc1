/**
 * How soon after the paste gemini 0.61.0 takes Enter, measured on the real gemini against the stub.
 * gemini turns an Enter it reads within 30 ms of the last insertable key (the paste) into a newline
 * (bundle: bufferFastReturn, FAST_RETURN_TIMEOUT = 30), timed when gemini *processes* the keys: a
 * fixed pause after tmux's paste proves nothing once gemini's event loop lags. For each mode, paste,
 * press Enter once, and see whether BeforeAgent arrives within 1.5 s (else the Enter was lost):
 * - `fixed:N`: Enter N ms after the paste;
 * - `shown:N`: Enter N ms after the screen first shows the pasted text in the composer (gemini has
 *   processed the paste, so its 30 ms run from a moment already past).
 * - `send`: umbel's own send (GEMINI_DELIVERY), the Enters it took and the time to BeforeAgent.
 * With SHOW_LOST=1 the composer of each lost Enter is printed (a newline shows as a second blank line).
 * Not part of `npm run bench`.
 *
 *   bun run bench/measure/gemini-enter.ts [tries=6] [modes=fixed:50,fixed:400,shown:0,shown:40]
 */

import { gemini } from "../../src/core/providers/gemini/provider.ts";
import { countEvents, parseEvents } from "../../src/core/worker/events.ts";
import { waitForTurn } from "../../src/operations/wait/wait.ts";
import { sendPrompt } from "../../src/operations/worker/send.ts";
import { createGeminiWorld } from "../../test/helpers/gemini-world.ts";
import { requireRealGemini } from "../../test/real/real-gemini.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";

const tries = Number(process.argv[2] ?? 6);
const modes = (process.argv[3] ?? "fixed:50,fixed:400,shown:0,shown:40").split(",");
const bin = requireRealGemini("gemini-enter");
if (!bin) process.exit(2);
const stub = await startStubModel({ dialect: "gemini" });
const world = await createGeminiWorld(bin, stub.url);
const { deps } = world;
const log = () => deps.store.readHooksLog("w1");

try {
  await world.start("w1", { model: "gemini-2.5-flash" });
  for (const mode of modes) {
    const [how, n] = mode.split(":") as [string, string];
    let taken = 0;
    const shownAfter: number[] = [];
    const enters: number[] = [];
    for (let i = 0; i < tries; i++) {
      const prompt = `enter ${how} ${n} try ${i}`;
      await Bun.sleep(Number(process.env.GAP_MS ?? 0));
      const baseline = countEvents(await log());
      const t0 = performance.now();
      if (how === "send") {
        const sent = await sendPrompt(deps, { name: "w1", prompt });
        shownAfter.push(performance.now() - t0);
        enters.push(sent.enters);
        taken += sent.enters === 1 ? 1 : 0;
        await waitForTurn(deps, { name: "w1", after: sent.baseline, timeout: 30_000 });
        continue;
      }
      await deps.tmux.paste("w1", gemini.preparePrompt(prompt), `m-${how}-${n}-${i}`);
      if (how === "shown") {
        for (;;) {
          const screen = (await deps.tmux.capture("w1")) ?? "";
          if (pasteShown(screen)) break;
        }
        shownAfter.push(performance.now() - t0);
      }
      await Bun.sleep(Number(n));
      await deps.tmux.sendKeys("w1", ["Enter"]);
      const until = Date.now() + 1500;
      let ok = false;
      while (!ok && Date.now() < until) {
        const events = parseEvents(gemini, await log(), baseline);
        ok = events.some((e) => gemini.interpretEvent(e).kind === "submitted");
        if (!ok) await Bun.sleep(20);
      }
      if (ok) {
        taken++;
        await waitForTurn(deps, { name: "w1", after: baseline, timeout: 30_000 });
      } else {
        if (process.env.SHOW_LOST)
          console.log(
            `lost ${mode} ${i}:\n${(await deps.tmux.capture("w1"))
              ?.split("\n")
              .filter(
                (_l, i, all) =>
                  i > all.findLastIndex((x) => x.startsWith("───")) - 3 &&
                  i < all.findLastIndex((x) => x.includes("workspace")),
              )
              .map((l) => JSON.stringify(l.trimEnd()))
              .join("\n")}`,
          );
        await deps.tmux.sendKeys("w1", ["Enter"]);
        await waitForTurn(deps, { name: "w1", after: baseline, timeout: 30_000 });
      }
    }
    const label = how === "send" ? `accepted after (enters ${enters.join(",")})` : "shown after";
    const shown = shownAfter.length ? `  (${label} ${shownAfter.map((s) => s.toFixed(0)).join(",")} ms)` : "";
    console.log(
      `${mode.padEnd(10)} ${taken}/${tries}${shown}  load ${(await Bun.file("/proc/loadavg").text()).split(" ")[0]}`,
    );
  }
} finally {
  await world.dispose();
  await stub.stop();
}

/**
 * The composer holds text: below the last rule, the `>`/`*` line no longer shows the placeholder (a
 * long paste reads `[Pasted Text: N chars]`). gemini draws it only once it has read the paste.
 */
function pasteShown(screen: string): boolean {
  const lines = screen.split("\n");
  const rule = lines.findLastIndex((line) => /^─{20,}/.test(line));
  if (rule === -1) return false;
  const below = lines.slice(rule + 1).join("\n");
  return !below.includes("Type your message or @path/to/file") && /^ ?[>*] {1,3}\S/m.test(below);
}
