import { join } from "node:path";
import { codexEnv, seedCodexWorld, stubProviderToml } from "../../test/helpers/codex-world.ts";
import { createSandbox } from "../../test/helpers/sandbox.ts";
import { requireRealCodex } from "../../test/real/real-codex.ts";
import { startStubModel } from "../../test/stub-model/stub-model.ts";
import type { ProviderBench } from "./bench-types.ts";

/** The real codex on the stub (openai dialect): `codex exec` against `umbel -p --provider codex`. */
export async function setUpCodexBench(): Promise<ProviderBench | null> {
  const bin = requireRealCodex("bench");
  if (!bin) return null;
  const stub = await startStubModel({ dialect: "openai" });
  const sb = await createSandbox({ untrusted: true });
  const world = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url));
  Object.assign(sb.env, { UMBEL_CODEX_BIN: bin, CODEX_HOME: world.userCodexHome });
  return {
    id: "codex",
    cwd: sb.work,
    env: sb.env,
    umbelFlags: ["--provider", "codex"],
    vendorLabel: "codex exec",
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
