// The real gemini-cli 0.61.0 at its daily quota, through dist/umbel against the stub model
// (docs/limits.md): the "Usage limit reached" box fires no hook; umbel chooses Stop, gemini writes
// the error line to its chat file and fires AfterAgent, and that line makes it a limit.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { STUB_KEY } from "../helpers/gemini-world.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";
import { limit } from "../stub-model/limits.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealGemini } from "./real-gemini.ts";

setDefaultTimeout(120_000);

const gemini = requireRealGemini("test/real/gemini-limits.test.ts");
type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (s: string) => JSON.parse(s) as Json;

describe.skipIf(gemini === null)("real gemini at its daily quota, through dist/umbel", () => {
  let stub: StubModel;
  let sb: Sandbox;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "gemini" });
    sb = await createSandbox({ untrusted: true });
    Object.assign(sb.env, {
      UMBEL_GEMINI_BIN: gemini ?? "gemini",
      GEMINI_API_KEY: STUB_KEY,
      GOOGLE_GEMINI_BASE_URL: stub.url,
    });
  });
  afterAll(async () => {
    await sb?.dispose();
    await stub?.stop();
  });

  async function turn(prompt: string) {
    const sent = json((await sb.umbel(["send", "gl", prompt, "--json"])).stdout);
    const waited = await sb.umbel([
      "wait",
      "gl",
      "--after",
      String(sent.baseline),
      "--json",
      "--timeout",
      "60s",
    ]);
    return { outcome: json(waited.stdout), code: waited.code };
  }

  test("the daily quota → limited (120, window daily, no reset time); the worker stays usable after it", async () => {
    const spawned = await sb.umbel([
      "spawn",
      "gl",
      "--provider",
      "gemini",
      "--start-timeout",
      "60s",
      "--json",
    ]);
    expect(spawned.code).toBe(0);
    stub.script(limit(0, "daily"));
    const started = performance.now();
    const { outcome, code } = await turn("spend my quota");
    console.log(`[timing] send → limited: ${Math.round(performance.now() - started)} ms`);
    expect(outcome.reason).toBe("limited");
    expect(outcome.evidence.limit).toMatchObject({ window: "daily", resetsAt: null });
    expect(String(outcome.evidence.message)).toContain("exhausted your daily quota");
    expect(code).toBe(120);
    const status = json((await sb.umbel(["status", "gl", "--json"])).stdout);
    expect(status.billing).toMatchObject({ route: "api-key" });
    expect(status.telemetry).toMatchObject({ costUsd: null });
    const next = await turn("after the quota");
    expect(next.outcome.reason).toBe("stop");
  });
});
