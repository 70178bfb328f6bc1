// umbel's guardrails (--json-schema, --accept) with the real Codex TUI: guardrail-scenarios.ts.
import { setDefaultTimeout } from "bun:test";
import { join } from "node:path";
import { seedCodexWorld, stubProviderToml } from "../helpers/codex-world.ts";
import { createSandbox } from "../helpers/sandbox.ts";
import { startStubModel } from "../stub-model/stub-model.ts";
import { guardrailScenarios } from "./guardrail-scenarios.ts";
import { requireRealCodex } from "./real-codex.ts";

setDefaultTimeout(120_000);

const codex = requireRealCodex("test/real/codex-guardrails.test.ts");

if (codex)
  guardrailScenarios("codex", async () => {
    const stub = await startStubModel({ dialect: "openai" });
    const sb = await createSandbox({ untrusted: true });
    const userHome = seedCodexWorld(join(sb.dir, "codex"), stubProviderToml(stub.url)).userCodexHome;
    Object.assign(sb.env, { UMBEL_CODEX_BIN: codex, CODEX_HOME: userHome });
    return {
      sb,
      stub,
      spawnFlags: ["--provider", "codex", "--start-timeout", "60s"],
      async dispose() {
        await sb.dispose();
        await stub.stop();
      },
    };
  });
