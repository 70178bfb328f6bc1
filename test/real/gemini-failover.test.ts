// The REAL gemini-cli 0.61.0 with --on-limit failover, through dist/umbel against the stub model, on
// two accounts of its own (docs/accounts.md, "Failover"): the shared failover scenario
// (scenarios/failover.ts) with gemini's profile (providers/gemini.ts): at the daily quota on account
// ga the worker moves to gb, `gemini --resume <id>` goes on with the session in the worker's own
// home, and gemini having rolled the limited prompt back, umbel sends that prompt again.
import { setDefaultTimeout } from "bun:test";
import { geminiFailoverProfile } from "./providers/gemini.ts";
import { requireRealGemini } from "./real-gemini.ts";
import { failoverScenarios } from "./scenarios/failover.ts";

setDefaultTimeout(240_000);

const gemini = requireRealGemini("test/real/gemini-failover.test.ts");

failoverScenarios(geminiFailoverProfile(gemini));
