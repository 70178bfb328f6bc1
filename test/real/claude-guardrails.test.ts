// umbel's guardrails (--json-schema, --accept) with the real Claude Code TUI: scenarios/guardrails.ts.
import { setDefaultTimeout } from "bun:test";
import { CLAUDE_KEY_FLAGS, makeClaudeWorld } from "./providers/claude.ts";
import { requireRealClaude } from "./real-bin.ts";
import { guardrailScenarios } from "./scenarios/guardrails.ts";

setDefaultTimeout(120_000);

const claude = requireRealClaude("test/real/claude-guardrails.test.ts");

if (claude)
  guardrailScenarios("claude", async () => {
    const world = await makeClaudeWorld(claude, {
      apiKey: "sk-ant-test-umbel-guard-0123456789abcdefgh",
      trusted: true,
      noRetries: true,
    });
    return { ...world, spawnFlags: CLAUDE_KEY_FLAGS };
  });
