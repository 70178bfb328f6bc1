import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTmux, deriveSocket } from "../../src/adapters/tmux.ts";
import { claudeEnv, seedClaudeHome } from "../../test/real/claude-home.ts";
import { findRealClaude } from "../../test/real/real-bin.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";

export type ClaudeBench = {
  readonly claude: string;
  readonly dir: string;
  readonly env: Record<string, string>;
  dispose(): Promise<void>;
};

/**
 * The real claude (npm run setup:real) on the local stub model, with a seeded home that shows no
 * dialog, and a state root of its own: what every claude benchmark runs on. null when not installed.
 */
export async function setUpClaude(): Promise<ClaudeBench | null> {
  const claude = findRealClaude();
  if (!claude) return null;
  const dir = mkdtempSync(join(tmpdir(), "umbel-bench-"));
  const stub = await startStubModel({ dialect: "anthropic" });
  const apiKey = "sk-ant-bench-0123456789abcdefghij";
  const layout = seedClaudeHome(join(dir, "claude"), { apiKey, trustedDirs: [dir] });
  const env = {
    ...claudeEnv(layout, { baseUrl: stub.url, apiKey }),
    UMBEL_HOME: join(dir, "state"),
    UMBEL_CLAUDE_BIN: claude,
  };
  return {
    claude,
    dir,
    env,
    async dispose() {
      await createTmux({ socket: deriveSocket(env.UMBEL_HOME, undefined), hostEnv: env })
        .killServer()
        .catch(() => undefined);
      await stub.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
