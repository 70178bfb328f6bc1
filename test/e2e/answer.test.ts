import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { type CliJson, sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(90_000);

/** dist/umbel: `answer` on each fake's permission prompt — allow, a stale id refused, deny. */

let sb: Sandbox;
beforeAll(async () => {
  sb = await createSandbox({ env: { GEMINI_API_KEY: "fake-key" } });
  mkdirSync(join(sb.dir, "home", ".gemini"), { mode: 0o700 });
});
afterAll(async () => {
  await sb.dispose();
});

const json = (text: string) => JSON.parse(text) as CliJson;

describe.each([
  ["claude", ["--permission-mode", "manual"], "x.txt"],
  ["codex", [], "fake-approved.txt"],
  ["gemini", [], "fake-approved.txt"],
] as const)("answer on %s's prompt", (provider, flags, made) => {
  const name = `ans-${provider}`;
  beforeAll(async () => {
    await spawnOk(sb, name, ["--provider", provider, ...flags]);
  });

  test("wait says input with an inputId; answer allow --input-id approves; the same turn stops", async () => {
    const asked = await sendAndWait(sb, name, "fake:permission", ["--timeout", "20s"]);
    expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    const inputId = String(asked.outcome.evidence.inputId);
    expect(inputId).toMatch(/^in-[0-9a-f]{12}$/);
    const answered = await sb.umbel(["answer", name, "allow", "--input-id", inputId, "--json"]);
    expect(answered.stderr).toBe("");
    expect(json(answered.stdout)).toMatchObject({ name, inputId, choice: "allow" });
    expect(answered.code).toBe(0);
    const done = await sb.umbel([
      "wait",
      name,
      "--after",
      String(asked.baseline),
      "--json",
      "--timeout",
      "20s",
    ]);
    expect(json(done.stdout).reason).toBe("stop");
    expect((await sb.umbel(["read", name])).stdout).toContain("FAKE-");
    expect(existsSync(join(sb.work, made))).toBe(true);

    // The same id again: that prompt is gone, so nothing is pressed (exit 4).
    const stale = await sb.umbel(["answer", name, "allow", "--input-id", inputId]);
    expect(stale.stderr).toContain(`no longer shows prompt ${inputId}`);
    expect(stale.code).toBe(4);
  });

  test("deny: the turn ends as a stop marked interrupted (or as the provider reports it)", async () => {
    rmSync(join(sb.work, made), { force: true });
    const asked = await sendAndWait(sb, name, "fake:permission", ["--timeout", "20s"]);
    expect(asked.outcome.reason).toBe("input");
    const answered = await sb.umbel(["answer", name, "deny"]);
    expect(answered.stdout).toContain(`${name}: answered in-`);
    expect(answered.code).toBe(0);
    const done = await sb.umbel([
      "wait",
      name,
      "--after",
      String(asked.baseline),
      "--json",
      "--timeout",
      "20s",
    ]);
    expect(json(done.stdout)).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
    expect(existsSync(join(sb.work, made))).toBe(false);
    // Nothing left to answer.
    const none = await sb.umbel(["answer", name, "allow"]);
    expect(none.stderr).toContain("shows no prompt to answer");
    expect(none.code).toBe(4);
  });
});
