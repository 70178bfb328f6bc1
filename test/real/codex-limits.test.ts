// The real codex-cli 0.171.0 at a usage limit, through dist/umbel against the stub model
// (docs/limits.md): a 429 `usage_limit_reached` ends the turn at once and fires no hook; the
// rollout's task_complete (codex_error_info usage_limit_exceeded) and its token_count windows decide.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { seedCodexWorld, stubProviderToml } from "../helpers/codex-world.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";
import { limit } from "../stub-model/limits.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealCodex } from "./real-codex.ts";

setDefaultTimeout(120_000);

const codex = requireRealCodex("test/real/codex-limits.test.ts");
type Json = Record<string, unknown> & { evidence: Record<string, unknown> };
const json = (s: string) => JSON.parse(s) as Json;

describe.skipIf(codex === null)("real codex at a usage limit, through dist/umbel", () => {
  let stub: StubModel;
  let sb: Sandbox;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "openai" });
    sb = await createSandbox({ untrusted: true });
    const userHome = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url)).userCodexHome;
    Object.assign(sb.env, { UMBEL_CODEX_BIN: codex ?? "codex", CODEX_HOME: userHome });
  });
  afterAll(async () => {
    await sb?.dispose();
    await stub?.stop();
  });

  test("a limit → limited (120) from the rollout (no hook fires), window primary and its reset; the worker usable", async () => {
    const spawned = await sb.umbel([
      "spawn",
      "xl",
      "--provider",
      "codex",
      "--start-timeout",
      "60s",
      "--json",
    ]);
    expect(spawned.code).toBe(0);
    stub.script(limit(1800, "pro"));
    const started = performance.now();
    const sent = json((await sb.umbel(["send", "xl", "use the quota", "--json"])).stdout);
    const waited = await sb.umbel([
      "wait",
      "xl",
      "--after",
      String(sent.baseline),
      "--json",
      "--timeout",
      "60s",
    ]);
    console.log(`[timing] send → limited: ${Math.round(performance.now() - started)} ms`);
    const outcome = json(waited.stdout);
    expect(outcome.reason).toBe("limited");
    const limited = outcome.evidence.limit as { window: string; resetsAt: string; message: string };
    expect(limited.window).toBe("primary");
    expect(Math.abs(Date.parse(limited.resetsAt) - (Date.now() + 1800_000))).toBeLessThan(60_000);
    expect(limited.message).toStartWith("You’ve hit your usage limit.");
    expect(waited.code).toBe(120);
    // Only UserPromptSubmit fired for the turn (shared notes, limits.md §2.3).
    const logs = (await sb.umbel(["logs", "xl"])).stdout;
    expect(logs.split("\n").filter((l) => /Stop|Interrupt/.test(l))).toEqual([]);
    const status = json((await sb.umbel(["status", "xl", "--json"])).stdout);
    expect(status.telemetry).toMatchObject({ costUsd: null, missing: { costUsd: "codex records no cost" } });
    expect((status.telemetry as { windows: { name: string }[] }).windows.map((w) => w.name)).toEqual([
      "primary",
      "secondary",
    ]);
    // Its "Approaching rate limits / Switch to … ?" popup was answered "Keep current model" by wait.
    const screen = (await sb.umbel(["capture", "xl"])).stdout;
    expect(screen).not.toContain("Approaching rate limits");
    expect(screen).toContain("5h limit: only <1% left");
    const again = json((await sb.umbel(["send", "xl", "after the limit", "--json"])).stdout);
    const next = await sb.umbel([
      "wait",
      "xl",
      "--after",
      String(again.baseline),
      "--json",
      "--timeout",
      "60s",
    ]);
    expect(json(next.stdout).reason).toBe("stop");
  });
});
