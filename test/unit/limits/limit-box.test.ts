// send closes the box a CLI opens after a usage limit (claude's /rate-limit-options, drawn ~1 s
// after StopFailure) when wait did not see it: only once the turn is over, never during one.
import { describe, expect, test } from "bun:test";
import { sendPrompt } from "../../../src/operations/worker/send.ts";
import { BUSY, IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld } from "../../helpers/fake-deps.ts";

const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });
const MENU = `${IDLE}❯ /rate-limit-options\n  What do you want to do?\n\n  ❯ 1. Stop and wait for limit to reset\n    2. Wait here, then continue automatically at 4:09pm\n\n  Enter to confirm · Esc to cancel\n`;

function limitedWorker(turnOver: boolean) {
  const world = createFakeWorld();
  addWorker(world, "w1", { screen: MENU });
  world.hook("w1", ev("SessionStart", { transcript_path: "/t/s.jsonl" }));
  world.hook("w1", ev("UserPromptSubmit", { prompt_id: "p0", prompt: "limit" }));
  if (turnOver)
    world.hook(
      "w1",
      ev("StopFailure", { error: "rate_limit", last_assistant_message: "You've hit your limit" }),
    );
  world.tmux.onKeys = (name, keys) => {
    const pane = world.tmux.panes.get(name);
    if (!pane) return;
    if (keys.join() === "1" && pane.screen === MENU) pane.screen = IDLE;
    else if (keys.includes("Enter") && pane.screen === IDLE) {
      pane.screen = BUSY;
      world.hook(name, ev("UserPromptSubmit", { prompt_id: "p1", prompt: "next" }));
    }
  };
  return world;
}

describe("send after a limit", () => {
  test("the menu still open: its 'Stop and wait' key, then the prompt goes in", async () => {
    const world = limitedWorker(true);
    const sent = await sendPrompt(world.deps, { name: "w1", prompt: "next" });
    expect(sent).toMatchObject({ promptId: "p1" });
    expect(world.tmux.calls).toContain("send-keys 1");
  });

  test("a box while the turn is still on is wait's business: refused busy (4), no key pressed", async () => {
    const world = limitedWorker(false);
    await expect(sendPrompt(world.deps, { name: "w1", prompt: "next" })).rejects.toMatchObject({
      code: "busy",
    });
    expect(world.tmux.calls).not.toContain("send-keys 1");
  });
});
