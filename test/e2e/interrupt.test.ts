import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * Escape, or a permission prompt denied with keys, ends a claude turn with no hook at all (2.1.332).
 * wait must still return (stop, marked interrupted) instead of running to its 30-minute deadline.
 */
let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox();
});
afterAll(async () => {
  await sb.dispose();
});

async function sendAndWait(name: string, prompt: string, flags: string[] = []) {
  const sent = JSON.parse((await sb.umbel(["send", name, prompt, "--json"])).stdout);
  const r = await sb.umbel(["wait", name, "--after", String(sent.baseline), "--json", ...flags]);
  return { baseline: sent.baseline as number, outcome: JSON.parse(r.stdout), code: r.code };
}

describe("turns that end without a hook", () => {
  test("a permission prompt denied with Escape: wait returns stop, interrupted", async () => {
    expect((await sb.umbel(["spawn", "deny", "--permission-mode", "manual"])).code).toBe(0);
    const asked = await sendAndWait("deny", "fake:permission");
    expect(asked.outcome.reason).toBe("input");
    expect((await sb.umbel(["keys", "deny", "Escape"])).code).toBe(0);
    const r = await sb.umbel([
      "wait",
      "deny",
      "--after",
      String(asked.baseline),
      "--timeout",
      "20s",
      "--json",
    ]);
    expect(JSON.parse(r.stdout)).toMatchObject({
      reason: "stop",
      exitCode: 0,
      evidence: { interrupted: true },
    });
    expect((await sb.umbel(["status", "deny", "--json"])).stdout).toContain('"state":"idle"');
    // The worker takes the next prompt.
    expect((await sendAndWait("deny", "fake:reply after the denial")).outcome.reason).toBe("stop");
  });

  test("a hung turn interrupted with Escape", async () => {
    expect((await sb.umbel(["spawn", "esc"])).code).toBe(0);
    const sent = JSON.parse((await sb.umbel(["send", "esc", "fake:hang", "--json"])).stdout);
    expect((await sb.umbel(["wait", "esc", "--after", String(sent.baseline), "--timeout", "1s"])).code).toBe(
      124,
    );
    await sb.umbel(["keys", "esc", "Escape"]);
    const r = await sb.umbel(["wait", "esc", "--after", String(sent.baseline), "--timeout", "20s", "--json"]);
    expect(JSON.parse(r.stdout)).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
  });
});
