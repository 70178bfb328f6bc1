import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import { createTmux, deriveSocket } from "../../../src/adapters/tmux.ts";

/**
 * The real Claude Code on YOUR subscription: never in CI. Run it by hand after a vendor release:
 *   npm run build && UMBEL_SMOKE=1 bun test test/smoke/claude
 * It uses the `claude` on PATH (or UMBEL_CLAUDE_BIN) with your own login and config, in a
 * throwaway working directory and a throwaway umbel state root. One short turn is billed.
 */
const enabled = process.env.UMBEL_SMOKE === "1";
const UMBEL = join(import.meta.dir, "..", "..", "..", "dist", "umbel");

describe.skipIf(!enabled)("claude on a real subscription", () => {
  test("spawn → send → wait → read → kill, and umbel -p", async () => {
    const dir = mkdtempSync(join(tmpdir(), "umbel-smoke-"));
    // HOME stays the user's own (their login), so the preload's throwaway HOME is undone here.
    const env = {
      ...process.env,
      HOME: process.env.UMBEL_SMOKE_HOME ?? userInfo().homedir,
      UMBEL_HOME: join(dir, "state"),
    };
    const run = (args: string[]) =>
      Bun.spawnSync([UMBEL, ...args], { cwd: dir, env, stdout: "pipe", stderr: "pipe" });
    try {
      expect(run(["spawn", "smoke"]).exitCode).toBe(0);
      expect(run(["send", "smoke", "Reply with exactly the word: pineapple"]).exitCode).toBe(0);
      expect(run(["wait", "smoke", "--timeout", "3m"]).exitCode).toBe(0);
      expect(run(["read", "smoke"]).stdout.toString().toLowerCase()).toContain("pineapple");
      expect(run(["kill", "smoke", "--purge"]).exitCode).toBe(0);
      const p = run(["-p", "Reply with exactly the word: mango"]);
      expect(p.stdout.toString().toLowerCase()).toContain("mango");
      expect(p.exitCode).toBe(0);
    } finally {
      await createTmux({ socket: deriveSocket(env.UMBEL_HOME, undefined), hostEnv: env })
        .killServer()
        .catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
