// Drives one gemini worker of a GeminiWorld the way umbel's send and wait will: paste, the
// provider's pause, Enter, hooks and the transcript, read through the pure gemini provider.

import { interpretGeminiEvent } from "../../src/core/providers/gemini/events.ts";
import { GEMINI_DELIVERY, prepareGeminiPrompt } from "../../src/core/providers/gemini/provider.ts";
import { classifyGeminiScreen, type GeminiScreenState } from "../../src/core/providers/gemini/screen.ts";
import { type GeminiAnswer, parseGeminiAnswer } from "../../src/core/providers/gemini/transcript.ts";
import type { GeminiWorld } from "./gemini-world.ts";
import { eventually } from "./sandbox.ts";

/** What umbel's send and wait will do with a gemini worker, for tests of the real CLI and the fake. */
export function driveGemini(world: GeminiWorld, name: string) {
  const screen = async () => (await world.tmux.capture(name)) ?? "";
  const state = async () => classifyGeminiScreen(await screen());
  return {
    screen,
    state,
    /** Unique-buffer paste, the provider's pause, Enter; Enter again (only on the composer) until BeforeAgent. */
    async send(prompt: string): Promise<{ baseline: number; turnKey: string; enters: number }> {
      const baseline = world.eventCount(name);
      await world.tmux.paste(
        name,
        prepareGeminiPrompt(prompt),
        `umbel-send-${crypto.randomUUID().slice(0, 8)}`,
      );
      // The engine's own pause (an Enter too soon after a paste becomes a newline), not a wait.
      await Bun.sleep(GEMINI_DELIVERY.enterDelayMs);
      for (let enters = 1; enters <= GEMINI_DELIVERY.maxEnters; enters++) {
        await world.tmux.sendKeys(name, ["Enter"]);
        const submitted = await eventually(
          () =>
            world
              .events(name)
              .slice(baseline)
              .find((e) => interpretGeminiEvent(e).kind === "submitted") ?? null,
          GEMINI_DELIVERY.confirmWindowMs,
        ).catch(() => null);
        if (submitted) return { baseline, turnKey: String(submitted.payload.timestamp), enters };
        const now = await state();
        if (now.kind !== "ready")
          throw new Error(`prompt not taken, screen is ${now.kind}:\n${await screen()}`);
      }
      throw new Error(`prompt not taken after ${GEMINI_DELIVERY.maxEnters} Enters:\n${await screen()}`);
    },
    afterAgent: (baseline: number, timeoutMs = 30_000) =>
      eventually(
        () =>
          world
            .events(name)
            .slice(baseline)
            .some((e) => e.name === "AfterAgent"),
        timeoutMs,
        "AfterAgent",
      ),
    /** The transcript's reading of the turn once it is settled (read re-reads for up to 5 s too). */
    answer: (turnKey: string | null): Promise<GeminiAnswer> =>
      eventually(() => {
        const parsed = parseGeminiAnswer(world.transcript(name), turnKey);
        return parsed.complete ? parsed : null;
      }, 5_000),
    /** Polls the screen until the provider classifies it as `kind`. */
    until: async <K extends GeminiScreenState["kind"]>(kind: K, timeoutMs = 20_000) =>
      eventually(
        async () => {
          const now = await state();
          return now.kind === kind ? (now as Extract<GeminiScreenState, { kind: K }>) : null;
        },
        timeoutMs,
        `a ${kind} screen`,
      ),
  };
}
