import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createGeminiWorld } from "../../test/helpers/gemini-world.ts";
import { requireRealGemini } from "../../test/real/real-gemini.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";
import type { ProviderBench } from "./bench-types.ts";
import { tmuxFloor } from "./floor.ts";

const GEMINI_MODEL = "gemini-2.5-flash";

/** The real gemini on the stub (gemini dialect): `gemini -p` against `umbel -p --provider gemini`, and gemini's floor. */
export async function setUpGeminiBench(): Promise<ProviderBench | null> {
  const bin = requireRealGemini("bench");
  if (!bin) return null;
  const stub = await startStubModel({ dialect: "gemini" });
  const world = await createGeminiWorld(bin, stub.url);
  const env = { ...(world.deps.env as Record<string, string>), UMBEL_GEMINI_BIN: bin };
  mkdirSync(join(world.dir, "tmp"), { recursive: true });
  // The print home's settings (auth, no banner, no update check) with only the floor's own hook.
  const settings = JSON.parse(readFileSync(join(world.geminiHome, ".gemini", "settings.json"), "utf8")) as {
    hooks?: unknown;
  };
  return {
    id: "gemini",
    cwd: world.work,
    env,
    umbelFlags: ["--provider", "gemini", "--model", GEMINI_MODEL],
    vendorLabel: "gemini -p",
    vendor: (prompt) => ({ argv: [bin, "-p", prompt, "-m", GEMINI_MODEL], env: world.env() }),
    bin,
    /**
     * The TUI with the prompt on its command line (`-i`: run it, stay interactive), trusted by
     * GEMINI_CLI_TRUST_WORKSPACE, in a home of its own, until its AfterAgent hook runs.
     */
    floor(round) {
      const dir = join(world.dir, `floor-${round}`);
      const home = join(dir, "home");
      const marker = join(dir, "stopped");
      const afterAgent = {
        matcher: "",
        hooks: [{ type: "command", name: "floor", command: `touch ${marker}` }],
      };
      mkdirSync(join(home, ".gemini"), { recursive: true });
      writeFileSync(
        join(home, ".gemini", "settings.json"),
        JSON.stringify({ ...settings, hooks: { AfterAgent: [afterAgent] } }),
      );
      return tmuxFloor({
        dir,
        marker,
        cwd: world.work,
        env: world.env({ GEMINI_CLI_HOME: home }),
        argv: [bin, "-m", GEMINI_MODEL, "--session-id", crypto.randomUUID(), "-i", `bench ${round}`],
      });
    },
    async dispose() {
      await world.dispose();
      await stub.stop();
    },
  };
}
