// The real codex-cli 0.171.0 through dist/umbel (spawn → send → wait → read, provider-error, -p)
// against the stub model, with a "user" CODEX_HOME that points codex at the stub. Skipped locally
// when `npm run setup:real` has not run; UMBEL_REQUIRE_REAL=1 (CI) makes that a failure.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { seedCodexWorld, stubProviderToml } from "../helpers/codex-world.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";
import { httpError, text } from "../stub-model/replies.ts";
import { type StubModel, startStubModel } from "../stub-model/stub-model.ts";
import { requireRealCodex } from "./real-codex.ts";

const codex = requireRealCodex("test/real/codex.test.ts");
const json = (s: string) => JSON.parse(s) as Record<string, unknown> & { evidence: Record<string, unknown> };

describe.skipIf(codex === null)("real codex through dist/umbel", () => {
  let stub: StubModel;
  let sb: Sandbox;
  let userHome: string;
  beforeAll(async () => {
    stub = await startStubModel({ dialect: "openai" });
    sb = await createSandbox();
    userHome = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url)).userCodexHome;
    Object.assign(sb.env, { UMBEL_CODEX_BIN: codex ?? "codex", CODEX_HOME: userHome });
  });
  afterAll(async () => {
    await sb?.dispose();
    await stub?.stop();
  });

  async function turn(name: string, prompt: string) {
    const sent = await sb.umbel(["send", name, "--json", prompt]);
    expect(sent.stderr).toBe("");
    const waited = await sb.umbel([
      "wait",
      name,
      "--after",
      String(json(sent.stdout).baseline),
      "--json",
      "--timeout",
      "60s",
    ]);
    return { outcome: json(waited.stdout), code: waited.code };
  }

  test("spawn → send → wait (stop) → read; API error → provider-error; kill removes the profile", async () => {
    const spawned = await sb.umbel([
      "spawn",
      "rc",
      "--provider",
      "codex",
      "--json",
      "--start-timeout",
      "60s",
    ]);
    expect(spawned.stderr).toBe("");
    expect(spawned.code).toBe(0);
    stub.script(text("hello from the stub"));
    const ok = await turn("rc", "say hello");
    expect(ok.outcome.reason).toBe("stop");
    expect((await sb.umbel(["read", "rc"])).stdout).toBe("hello from the stub\n");

    stub.script(httpError(401));
    const failed = await turn("rc", "this one fails");
    expect(failed.outcome.reason).toBe("provider-error");
    expect(failed.code).toBe(122);

    const profile = join(realpathSync(sb.root), "codex-home", "umbel-rc.config.toml");
    expect(existsSync(profile)).toBe(true);
    expect((await sb.umbel(["kill", "rc"])).code).toBe(0);
    expect(existsSync(profile)).toBe(false);
    expect(existsSync(join(sb.work, ".codex"))).toBe(false);
  }, 180_000);

  test("umbel -p --provider codex", async () => {
    stub.script(text("printed answer"));
    const r = await sb.umbel(["-p", "--provider", "codex", "print it"]);
    expect(r.stdout).toBe("printed answer\n");
    expect(r.code).toBe(0);
  }, 120_000);
});
