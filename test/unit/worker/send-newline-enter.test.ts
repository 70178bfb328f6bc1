import { describe, expect, setDefaultTimeout, test } from "bun:test";
import { GEMINI_DELIVERY } from "../../../src/core/providers/gemini/provider.ts";
import { geminiPasteShown } from "../../../src/core/providers/gemini/screen.ts";
import { sendPrompt } from "../../../src/operations/worker/send.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";
import { BUSY_HOOK, READY } from "../providers/gemini-samples.ts";

setDefaultTimeout(20_000);

/** READY with `text` in the composer (gemini 0.61.0 draws the pasted text in place of the placeholder). */
const typed = (text: string) => READY.replace("Type your message or @path/to/file", text);

const start = { hook_event_name: "SessionStart", session_id: "S", transcript_path: "/t/s.jsonl" };

/**
 * A fake gemini: a paste shows in the composer; the first `lost` Enters become newlines (the text
 * stays), the next one submits (BeforeAgent after `hookMs`, the composer empty meanwhile).
 */
function geminiTui(world: FakeWorld, lost: number, hookMs = 0): void {
  const pane = () => world.tmux.panes.get("w1");
  let enters = 0;
  world.tmux.onPaste = (_name, text) => Object.assign(pane() ?? {}, { screen: typed(text) });
  world.tmux.onKeys = (_name, keys) => {
    if (!keys.includes("Enter") || ++enters <= lost) return;
    if (enters > lost + 1) return;
    Object.assign(pane() ?? {}, { screen: hookMs > 0 ? READY : BUSY_HOOK });
    const submit = () =>
      world.hook("w1", { hook_event_name: "BeforeAgent", session_id: "S", prompt: "hi there" });
    if (hookMs === 0) submit();
    else world.clock.at(world.clock.now() + hookMs, submit);
  };
}

function geminiWorker(): FakeWorld {
  const world = createFakeWorld();
  addWorker(world, "w1", { provider: "gemini", screen: READY });
  world.hook("w1", start);
  return world;
}

const enters = (world: FakeWorld) => world.tmux.calls.filter((c) => c === "send-keys Enter").length;

describe("send: an Enter the TUI took as a newline (gemini)", () => {
  test("geminiPasteShown: the composer below the rule holds text, not the placeholder", () => {
    expect(geminiPasteShown(READY)).toBe(false);
    expect(geminiPasteShown(typed("hi there"))).toBe(true);
    expect(geminiPasteShown(typed("[Pasted Text: 812 chars]"))).toBe(true);
    expect(geminiPasteShown("no rule here")).toBe(false);
  });

  test("the text still in the composer after the first Enter: Enter again before the window ends", async () => {
    const world = geminiWorker();
    geminiTui(world, 2);
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "hi there" });
    expect(sent.enters).toBe(3);
    expect(enters(world)).toBe(3);
    // Re-pressed on the screen's word, not after a whole confirm window per Enter.
    expect(sent.elapsedMs).toBeLessThan(GEMINI_DELIVERY.confirmWindowMs);
  });

  test("a composer emptied by the Enter waits for its late hook: no second Enter", async () => {
    const world = geminiWorker();
    geminiTui(world, 0, 900);
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "hi there" });
    expect(sent.enters).toBe(1);
    expect(enters(world)).toBe(1);
  });

  test("Enters that never take: quick re-presses in the first window, then the four full windows", async () => {
    const world = geminiWorker();
    geminiTui(world, Number.POSITIVE_INFINITY);
    await expect(sendPrompt(world.deps, { name: "w1", prompt: "hi there" })).rejects.toMatchObject({
      code: "not-delivered",
    });
    const quick = Math.ceil(GEMINI_DELIVERY.confirmWindowMs / GEMINI_DELIVERY.firstRecheckMs);
    expect(enters(world)).toBeGreaterThan(GEMINI_DELIVERY.maxEnters);
    expect(enters(world)).toBeLessThanOrEqual(GEMINI_DELIVERY.maxEnters + quick);
  });
});
