import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { createGeminiWorld } from "../../test/helpers/gemini-world.ts";
import { requireRealGemini } from "../../test/real/real-gemini.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";
import type { ProviderBench } from "./bench-types.ts";

const GEMINI_MODEL = "gemini-2.5-flash";

/** The real gemini on the stub (gemini dialect): `gemini -p` against `umbel -p --provider gemini`. */
export async function setUpGeminiBench(): Promise<ProviderBench | null> {
  const bin = requireRealGemini("bench");
  if (!bin) return null;
  const stub = await startStubModel({ dialect: "gemini" });
  const world = await createGeminiWorld(bin, stub.url);
  const env = { ...(world.deps.env as Record<string, string>), UMBEL_GEMINI_BIN: bin };
  mkdirSync(join(world.dir, "tmp"), { recursive: true });
  return {
    id: "gemini",
    cwd: world.work,
    env,
    umbelFlags: ["--provider", "gemini", "--model", GEMINI_MODEL],
    vendorLabel: "gemini -p",
    vendor: (prompt) => ({ argv: [bin, "-p", prompt, "-m", GEMINI_MODEL], env: world.env() }),
    bin,
    async dispose() {
      await world.dispose();
      await stub.stop();
    },
  };
}
