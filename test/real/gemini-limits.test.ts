// The real gemini-cli 0.61.0 at its daily quota, through dist/umbel against the stub model
// (docs/limits.md): the shared limit scenario (scenarios/limits.ts) with gemini's profile
// (providers/gemini.ts): the "Usage limit reached" box fires no hook; umbel chooses Stop, gemini
// writes the error line to its chat file and fires AfterAgent, and that line makes it a limit.
import { setDefaultTimeout } from "bun:test";
import { geminiLimitProfile } from "./providers/gemini.ts";
import { requireRealGemini } from "./real-gemini.ts";
import { limitScenarios } from "./scenarios/limits.ts";

setDefaultTimeout(120_000);

const gemini = requireRealGemini("test/real/gemini-limits.test.ts");

limitScenarios(geminiLimitProfile(gemini));
