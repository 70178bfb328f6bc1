// umbel's guardrails (--json-schema, --accept) with the real Gemini CLI: guardrail-scenarios.ts.
import { setDefaultTimeout } from "bun:test";
import { STUB_KEY } from "../helpers/gemini-world.ts";
import { createSandbox } from "../helpers/sandbox.ts";
import { startStubModel } from "../stub-model/stub-model.ts";
import { guardrailScenarios } from "./guardrail-scenarios.ts";
import { requireRealGemini } from "./real-gemini.ts";

setDefaultTimeout(150_000);

const gemini = requireRealGemini("test/real/gemini-guardrails.test.ts");

if (gemini)
  guardrailScenarios("gemini", async () => {
    const stub = await startStubModel({ dialect: "gemini" });
    const sb = await createSandbox({ untrusted: true });
    Object.assign(sb.env, {
      UMBEL_GEMINI_BIN: gemini,
      GEMINI_API_KEY: STUB_KEY,
      GOOGLE_GEMINI_BASE_URL: stub.url,
    });
    return {
      sb,
      stub,
      spawnFlags: ["--provider", "gemini", "--start-timeout", "90s"],
      async dispose() {
        await sb.dispose();
        await stub.stop();
      },
    };
  });
