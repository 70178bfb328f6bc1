import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { codexEnv, seedCodexWorld, stubProviderToml } from "../../test/helpers/codex-world.ts";
import { createGeminiWorld } from "../../test/helpers/gemini-world.ts";
import { createSandbox } from "../../test/helpers/sandbox.ts";
import { requireRealCodex } from "../../test/real/real-codex.ts";
import { requireRealGemini } from "../../test/real/real-gemini.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";
import { setUpClaude } from "./claude-stub.ts";

/** One real CLI on the local stub model, set up for `-p` benchmarks: its own -p and umbel's. */
export type ProviderBench = {
  readonly id: "claude" | "codex" | "gemini";
  readonly cwd: string;
  readonly env: Record<string, string>;
  /** umbel -p's flags for this provider (beside the prompt). */
  readonly umbelFlags: readonly string[];
  /** The vendor's own non-interactive run of `prompt`, and its environment. */
  vendor(prompt: string): { argv: string[]; env: Record<string, string> };
  /** The binary, for the floor (claude). */
  readonly bin: string;
  dispose(): Promise<void>;
};

const GEMINI_MODEL = "gemini-2.5-flash";

/** The provider's bench, or null when its real CLI is not installed (npm run setup:real). */
export async function setUpProvider(id: ProviderBench["id"]): Promise<ProviderBench | null> {
  if (id === "claude") {
    const claude = await setUpClaude();
    if (!claude) return null;
    return {
      id,
      cwd: claude.dir,
      env: claude.env,
      umbelFlags: ["--env", "ANTHROPIC_API_KEY"],
      vendor: (prompt) => ({ argv: [claude.claude, "-p", prompt], env: claude.env }),
      bin: claude.claude,
      dispose: claude.dispose,
    };
  }
  if (id === "codex") {
    const bin = requireRealCodex("bench");
    if (!bin) return null;
    const stub = await startStubModel({ dialect: "openai" });
    const sb = await createSandbox({ untrusted: true });
    const world = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url));
    Object.assign(sb.env, { UMBEL_CODEX_BIN: bin, CODEX_HOME: world.userCodexHome });
    return {
      id,
      cwd: sb.work,
      env: sb.env,
      umbelFlags: ["--provider", "codex"],
      vendor: (prompt) => ({
        argv: [bin, "exec", "--skip-git-repo-check", "--json", prompt],
        env: codexEnv(world, world.userCodexHome),
      }),
      bin,
      async dispose() {
        await sb.dispose();
        await stub.stop();
      },
    };
  }
  const bin = requireRealGemini("bench");
  if (!bin) return null;
  const stub = await startStubModel({ dialect: "gemini" });
  const world = await createGeminiWorld(bin, stub.url);
  const env = { ...(world.deps.env as Record<string, string>), UMBEL_GEMINI_BIN: bin };
  mkdirSync(join(world.dir, "tmp"), { recursive: true });
  return {
    id,
    cwd: world.work,
    env,
    umbelFlags: ["--provider", "gemini", "--model", GEMINI_MODEL],
    vendor: (prompt) => ({ argv: [bin, "-p", prompt, "-m", GEMINI_MODEL], env: world.env() }),
    bin,
    async dispose() {
      await world.dispose();
      await stub.stop();
    },
  };
}
