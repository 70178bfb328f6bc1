// umbel's guardrails (--json-schema, --accept) with the real Codex TUI: scenarios/guardrails.ts.
import { setDefaultTimeout } from "bun:test";
import { CODEX_SPAWN_FLAGS, makeCodexWorld } from "./providers/codex.ts";
import { requireRealCodex } from "./real-codex.ts";
import { guardrailScenarios } from "./scenarios/guardrails.ts";

setDefaultTimeout(120_000);

const codex = requireRealCodex("test/real/codex-guardrails.test.ts");

if (codex)
  guardrailScenarios("codex", async () => ({
    ...(await makeCodexWorld(codex)),
    spawnFlags: CODEX_SPAWN_FLAGS,
  }));
