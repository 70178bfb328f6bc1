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

describe("answer on a TUI slow to redraw after the key (a loaded machine)", () => {
  const name = "ans-slow-gemini";
  beforeAll(async () => {
    await spawnOk(sb, name, ["--provider", "gemini", "--env", "FAKE_GEMINI_PERM_KEY_MS=2500"]);
  });

  test("deny: the wait after it is the denied turn's end, never the prompt just answered", async () => {
    const asked = await sendAndWait(sb, name, "fake:permission", ["--timeout", "20s"]);
    expect(asked.outcome.reason).toBe("input");
    const answered = await sb.umbel(["answer", name, "deny"]);
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
  });
});

describe("answer on opencode's one-row permission box", () => {
  const name = "ans-opencode";
  beforeAll(async () => {
    await spawnOk(sb, name, ["--provider", "opencode"]);
  });
  const waitAfter = async (baseline: number) =>
    json((await sb.umbel(["wait", name, "--after", String(baseline), "--json", "--timeout", "20s"])).stdout);

  test("allow --input-id picks Allow once: the same turn stops with the approved answer", async () => {
    const asked = await sendAndWait(sb, name, "fake:permission /tmp/oc-once", ["--timeout", "20s"]);
    expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    const inputId = String(asked.outcome.evidence.inputId);
    const answered = await sb.umbel(["answer", name, "allow", "--input-id", inputId, "--json"]);
    expect(answered.stderr).toBe("");
    expect(json(answered.stdout)).toMatchObject({
      inputId,
      option: { number: 1, label: "Allow once" },
      keys: ["Enter"],
    });
    expect(answered.code).toBe(0);
    expect(await waitAfter(asked.baseline)).toMatchObject({
      reason: "stop",
      evidence: { message: "FAKE-APPROVED" },
    });
  });

  test("always confirms the grant: the turn stops, and the same folder is not asked again", async () => {
    const asked = await sendAndWait(sb, name, "fake:permission /tmp/oc-always", ["--timeout", "20s"]);
    expect(asked.outcome.reason).toBe("input");
    const answered = await sb.umbel(["answer", name, "always", "--json"]);
    expect(json(answered.stdout)).toMatchObject({
      option: { label: "Allow always" },
      keys: ["Right", "Enter", "Enter"],
    });
    expect(answered.code).toBe(0);
    expect((await waitAfter(asked.baseline)).reason).toBe("stop");
    const again = await sendAndWait(sb, name, "fake:permission /tmp/oc-always", ["--timeout", "20s"]);
    expect(again.outcome).toMatchObject({ reason: "stop", evidence: { message: "FAKE-APPROVED" } });
  });

  test("by label and by number from a moved highlight; deny rejects: a stop with no answer", async () => {
    const asked = await sendAndWait(sb, name, "fake:permission /tmp/oc-deny", ["--timeout", "20s"]);
    expect(asked.outcome.reason).toBe("input");
    expect((await sb.umbel(["keys", name, "Right"])).code).toBe(0); // someone moved it to Allow always
    const wrong = await sb.umbel(["answer", name, "maybe"]);
    expect(wrong.stderr).toContain("(options: 1. Allow once; 2. Allow always; 3. Reject)");
    expect(wrong.code).toBe(2);
    const answered = await sb.umbel(["answer", name, "Reject", "--json"]);
    expect(json(answered.stdout)).toMatchObject({
      option: { number: 3, label: "Reject" },
      keys: ["Right", "Enter"],
    });
    expect(await waitAfter(asked.baseline)).toMatchObject({ reason: "stop", evidence: { message: null } });

    const next = await sendAndWait(sb, name, "fake:permission /tmp/oc-number", ["--timeout", "20s"]);
    const byNumber = await sb.umbel(["answer", name, "1", "--json"]);
    expect(json(byNumber.stdout)).toMatchObject({ option: { label: "Allow once" }, keys: ["Enter"] });
    expect((await waitAfter(next.baseline)).reason).toBe("stop");
  });

  test("a question is answered by its label", async () => {
    const asked = await sendAndWait(sb, name, "fake:question", ["--timeout", "20s"]);
    expect(asked.outcome.reason).toBe("input");
    const answered = await sb.umbel(["answer", name, "Blue", "--json"]);
    expect(json(answered.stdout)).toMatchObject({ option: { number: 2, label: "Blue" }, keys: ["2"] });
    expect(await waitAfter(asked.baseline)).toMatchObject({
      reason: "stop",
      evidence: { message: "FAKE-ANSWERED Blue" },
    });
  });
});
