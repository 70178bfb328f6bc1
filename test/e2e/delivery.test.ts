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
});
