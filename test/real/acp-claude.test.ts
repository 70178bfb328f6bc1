// The REAL Claude Code TUI behind `dist/umbel acp`, driven by the real ACP client acpx against the
// stub model on loopback (scenarios/acp.ts): what an editor or an agent orchestrator speaking ACP
// sees. Skipped locally when `npm run setup:real` has not run; UMBEL_REQUIRE_REAL=1 (CI) makes that
// a failure.
import { setDefaultTimeout } from "bun:test";
import { CLAUDE_KEY_FLAGS, makeClaudeWorld } from "./providers/claude.ts";
import { requireRealAcpx } from "./real-acpx.ts";
import { requireRealClaude } from "./real-bin.ts";
import { acpScenarios } from "./scenarios/acp.ts";

// A claude start (trust dialog answered) and a turn take seconds; bun's default is 5 s, and a
// preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(90_000);

const claude = requireRealClaude("test/real/acp-claude.test.ts");

acpScenarios({
  label: "claude",
  bin: claude,
  acpx: requireRealAcpx("test/real/acp-claude.test.ts"),
  makeWorld: () => makeClaudeWorld(claude),
  // The key reaches the worker only by name.
  face: ["--provider", "claude", ...CLAUDE_KEY_FLAGS],
  tool: { prompt: "stub:bash echo hi-from-bash", command: "echo hi-from-bash" },
  // claude asks only in manual mode (its default, auto, has the classifier approve).
  permission: {
    flags: ["--permission-mode", "manual"],
    approve: {
      prompt: "stub:bash echo approved > approved.txt",
      made: "approved.txt",
      content: "approved\n",
    },
    deny: { prompt: "stub:bash echo no > denied.txt", absent: "denied.txt" },
  },
});
