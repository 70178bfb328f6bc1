// umbel's guardrails (--json-schema, --accept) with the real Claude Code TUI: guardrail-scenarios.ts.
import { setDefaultTimeout } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSandbox } from "../helpers/sandbox.ts";
import { startStubModel } from "../stub-model/stub-model.ts";
import { seedClaudeHome } from "./claude-home.ts";
import { guardrailScenarios } from "./guardrail-scenarios.ts";
import { requireRealClaude } from "./real-bin.ts";

setDefaultTimeout(120_000);

const claude = requireRealClaude("test/real/claude-guardrails.test.ts");
const API_KEY = "sk-ant-test-umbel-guard-0123456789abcdefgh";

if (claude)
  guardrailScenarios("claude", async () => {
    const stub = await startStubModel({ dialect: "anthropic" });
    const dir = await mkdtemp(join(tmpdir(), "umbel-real-guard-"));
    const sb = await createSandbox();
    const home = seedClaudeHome(dir, { apiKey: API_KEY, trustedDirs: [sb.work] });
    Object.assign(sb.env, {
      HOME: home.home,
      CLAUDE_CONFIG_DIR: home.configDir,
      TMPDIR: home.tmpDir,
      DISABLE_AUTOUPDATER: "1",
      ANTHROPIC_BASE_URL: stub.url,
      ANTHROPIC_API_KEY: API_KEY,
      CLAUDE_CODE_MAX_RETRIES: "0",
      UMBEL_CLAUDE_BIN: claude,
    });
    return {
      sb,
      stub,
      spawnFlags: ["--env", "ANTHROPIC_API_KEY"],
      async dispose() {
        await sb.dispose();
        await stub.stop();
        await rm(dir, { recursive: true, force: true });
      },
    };
  });
