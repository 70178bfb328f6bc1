// The real gemini-cli 0.61.0 through dist/umbel (spawn → send → wait → read, provider-error, -p)
// against the stub model (GOOGLE_GEMINI_BASE_URL + a stub API key). Skipped locally when
// `npm run setup:real` has not run; UMBEL_REQUIRE_REAL=1 (CI) makes that a failure.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { STUB_KEY } from "../helpers/gemini-world.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";
import { httpError, text } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealGemini } from "./real-gemini.ts";

const gemini = requireRealGemini("test/real/gemini.test.ts");
const json = (s: string) => JSON.parse(s) as Record<string, unknown> & { evidence: Record<string, unknown> };

describe.skipIf(gemini === null)("real gemini through dist/umbel", () => {
  let stub: StubModel;
  let sb: Sandbox;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "gemini" });
    sb = await createSandbox();
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

  async function turn(name: string, prompt: string) {
    const sent = await sb.umbel(["send", name, "--json", prompt]);
    expect(sent.stderr).toBe("");
    const after = String(json(sent.stdout).baseline);
    const waited = await sb.umbel(["wait", name, "--after", after, "--json", "--timeout", "60s"]);
    return { outcome: json(waited.stdout), code: waited.code };
  }

  test("spawn → send → wait (stop) → read; API error → provider-error", async () => {
    const spawned = await sb.umbel([
      "spawn",
      "rg",
      "--provider",
      "gemini",
      "--json",
      "--start-timeout",
      "60s",
    ]);
    expect(spawned.stderr).toBe("");
    expect(spawned.code).toBe(0);
    stub.script(text("hello from the stub"));
    const ok = await turn("rg", "say hello?");
    expect(ok.outcome.reason).toBe("stop");
    expect((await sb.umbel(["read", "rg"])).stdout).toBe("hello from the stub\n");

    stub.script(httpError(400));
    const failed = await turn("rg", "this one fails");
    expect(failed.outcome.reason).toBe("provider-error");
    expect(failed.code).toBe(122);
    expect((await sb.umbel(["kill", "rg"])).code).toBe(0);
    expect(existsSync(join(sb.work, ".gemini"))).toBe(false);
    expect(existsSync(join(sb.dir, "home", ".gemini"))).toBe(false);
  }, 180_000);

  test("umbel -p --provider gemini", async () => {
    stub.script(text("printed answer"));
    const r = await sb.umbel(["-p", "--provider", "gemini", "print it"]);
    expect(r.stdout).toBe("printed answer\n");
    expect(r.code).toBe(0);
  }, 120_000);
});
