import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/** send proves delivery: an Enter the TUI never takes is a failure (exit 1), the worker left alive. */
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

describe("delivery", () => {
  test("a swallowed first Enter is pressed again and the prompt is taken", async () => {
    expect((await sb.umbel(["spawn", "once"])).code).toBe(0);
    const sent = JSON.parse((await sb.umbel(["send", "once", "hello", "--json"])).stdout);
    expect(sent.enters).toBeGreaterThanOrEqual(1);
    expect((await sb.umbel(["wait", "once"])).code).toBe(0);
  });

  test("a prompt never taken: exit 1 with the screen, and the worker stays alive", async () => {
    // This fake swallows every Enter for 10 minutes after its prompt first appears.
    expect((await sb.umbel(["spawn", "deaf", "--env", "FAKE_CLAUDE_SWALLOW_MS=600000"])).code).toBe(0);
    const r = await sb.umbel(["send", "deaf", "are you there?", "--json"]);
    expect(r.stderr).toContain("did not take the prompt");
    expect(JSON.parse(r.stdout).error).toMatchObject({ code: "not-delivered", exitCode: 1 });
    expect(JSON.parse(r.stdout).error.data.screen).toContain("are you there?");
    expect(r.code).toBe(1);
    expect((await sb.umbel(["status", "deaf", "--json"])).stdout).toContain('"state":"idle"');
  });

  test("two concurrent sends to one idle worker: one submits its prompt whole, the other exits 4", async () => {
    expect((await sb.umbel(["spawn", "pair"])).code).toBe(0);
    const [a, b] = await Promise.all([sb.umbel(["send", "pair", "A1"]), sb.umbel(["send", "pair", "B1"])]);
    expect([a.code, b.code].sort()).toEqual([0, 4]);
    const loser = a.code === 4 ? a : b;
    expect(loser.stderr).toMatch(/busy|still delivering/);
    const logs = await sb.umbel(["logs", "pair", "--json"]);
    const prompts = logs.stdout
      .split("\n")
      .filter((l) => l !== "")
      .map((l) => JSON.parse(l) as { event: string; payload: { prompt?: string } })
      .filter((e) => e.event === "UserPromptSubmit")
      .map((e) => e.payload.prompt);
    expect(prompts).toHaveLength(1);
    expect(["A1", "B1"]).toContain(prompts[0] ?? "");
    expect((await sb.umbel(["wait", "pair"])).code).toBe(0);
  });
});
