// Issue 14 on the REAL codex-cli 0.171.0 through dist/umbel against the stub model: the shared fleet
// scenarios (scenarios/fleet.ts, codex's profile in providers/codex.ts: rules and --notify with a
// policy-allowed escalation, answer allow / deny on a real approval, a stale --input-id refused, wait
// --any over two real workers, a worktree kept while dirty), then issue 22 as codex meets it.
// Skipped locally without `npm run setup:real`.
import { expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { CODEX_SPAWN_FLAGS, codexFleetProfile } from "./providers/codex.ts";
import { requireRealCodex } from "./real-codex.ts";
import { dirtyRepo } from "./scenarios/drive.ts";
import { fleetScenarios } from "./scenarios/fleet.ts";

// The real CLI on real tmux takes seconds a turn; the file declares its own timeout.
setDefaultTimeout(150_000);

const codex = requireRealCodex("test/real/fleet-codex.test.ts");

fleetScenarios(codexFleetProfile(codex), {
  after({ world, ok, turn }) {
    test("issue 22: an escalated git diff --output is asked, never allowed by Bash(git diff:*); a dodged rm is denied", async () => {
      const { sb } = world();
      const repo = dirtyRepo(sb.work);
      await ok([
        "spawn",
        "cs",
        ...CODEX_SPAWN_FLAGS,
        "--cwd",
        repo,
        "--allow",
        "Bash(git diff:*)",
        "--deny",
        "Bash(rm:*)",
      ]);
      const asked = await turn("cs", "stub:escalate git diff --output=out.patch");
      expect(asked.outcome).toMatchObject({ reason: "input", exitCode: 126 });
      await ok(["answer", "cs", "deny"]);
      await sb.umbel(["wait", "cs", "--after", String(asked.baseline), "--timeout", "60s"]);
      expect(existsSync(join(repo, "out.patch"))).toBe(false);
      const denied = await turn("cs", "stub:bash if true; then X=1 rm -f keep.txt; fi");
      expect(denied.outcome.reason).toBe("stop");
      expect(existsSync(join(repo, "keep.txt"))).toBe(true);
      expect((await ok(["status", "cs"])).policy).toMatchObject({ allowed: 0, denied: 1 });
    });
  },
});
