// Issue 22 on the REAL gemini-cli 0.61.0 through dist/umbel against the stub model: gemini's own
// allowlist takes --allow, and runs `git diff --output=x` under run_shell_command(git diff) by
// itself (measured); umbel's BeforeTool answer `ask` makes it ask a person first, and a denied
// command wrapped in keywords and assignments is refused. Skipped locally without `npm run setup:real`.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { makeGeminiWorld } from "./providers/gemini.ts";
import { requireRealGemini } from "./real-gemini.ts";
import { dirtyRepo, drive, type RealWorld } from "./scenarios/drive.ts";

// The real CLI on real tmux takes seconds a turn; the file declares its own timeout.
setDefaultTimeout(150_000);

const gemini = requireRealGemini("test/real/fleet-gemini.test.ts");

describe.skipIf(gemini === null)("gemini: issue 22 through dist/umbel", () => {
  let world: RealWorld;
  const { ok, turn } = drive(() => world, "60s");
  beforeAll(async () => {
    world = await makeGeminiWorld(gemini);
  });
  afterAll(async () => {
    await world?.dispose();
  });

  test("git diff --output is asked, not run by gemini's allowlist; the rule's own command runs; a wrapped rm is denied", async () => {
    const { sb } = world;
    const repo = dirtyRepo(sb.work);
    await ok([
      "spawn",
      "gs",
      "--provider",
      "gemini",
      "--start-timeout",
      "60s",
      "--cwd",
      repo,
      "--allow",
      "run_shell_command(git diff)",
      "--deny",
      "run_shell_command(rm)",
    ]);
    expect((await turn("gs", "stub:bash git diff --stat")).outcome.reason).toBe("stop");
    const denied = await turn("gs", "stub:bash if true; then X=1 rm -f keep.txt; fi");
    expect(denied.outcome.reason).toBe("stop");
    expect(existsSync(join(repo, "keep.txt"))).toBe(true);
    // Last: after a cancelled call gemini sends the stub the old prompt and the next one run together.
    const asked = await turn("gs", "stub:bash git diff --output=out.patch");
    expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
    await ok(["answer", "gs", "deny"]);
    await sb.umbel(["wait", "gs", "--after", String(asked.baseline), "--timeout", "60s"]);
    expect(existsSync(join(repo, "out.patch"))).toBe(false);
    expect((await ok(["status", "gs"])).policy).toMatchObject({ denied: 1 });
  });
});
