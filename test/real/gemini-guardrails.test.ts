// umbel's guardrails (--json-schema, --accept) with the real Gemini CLI: scenarios/guardrails.ts.
import { setDefaultTimeout } from "bun:test";
import { makeGeminiWorld } from "./providers/gemini.ts";
import { requireRealGemini } from "./real-gemini.ts";
import { guardrailScenarios } from "./scenarios/guardrails.ts";

setDefaultTimeout(150_000);

const gemini = requireRealGemini("test/real/gemini-guardrails.test.ts");

if (gemini)
  guardrailScenarios("gemini", async () => ({
    ...(await makeGeminiWorld(gemini)),
    spawnFlags: ["--provider", "gemini", "--start-timeout", "90s"],
  }));
