// The REAL codex TUI behind `dist/umbel acp`, driven by the real ACP client acpx against the stub
// model on loopback (scenarios/acp.ts). Skipped locally when `npm run setup:real` has not run;
// UMBEL_REQUIRE_REAL=1 (CI) makes that a failure.
import { setDefaultTimeout } from "bun:test";
import { CODEX_SPAWN_FLAGS, makeCodexWorld } from "./providers/codex.ts";
import { requireRealAcpx } from "./real-acpx.ts";
import { requireRealCodex } from "./real-codex.ts";
import { acpScenarios } from "./scenarios/acp.ts";

// The real CLI on real tmux takes seconds a test; bun's default is 5 s (declared here: a preload's
// setDefaultTimeout reaches only the first file of a run, oven-sh/bun#43787).
setDefaultTimeout(120_000);

const codex = requireRealCodex("test/real/acp-codex.test.ts");

acpScenarios({
  label: "codex",
  bin: codex,
  acpx: requireRealAcpx("test/real/acp-codex.test.ts"),
  makeWorld: () => makeCodexWorld(codex),
  face: CODEX_SPAWN_FLAGS,
  // exec_command inside codex's workspace-write sandbox: nothing to ask.
  tool: { prompt: "stub:bash echo hi-from-bash", command: "echo hi-from-bash" },
  // What codex asks about is an escalation out of its sandbox.
  permission: {
    flags: [],
    approve: { prompt: "stub:escalate touch approved.txt", made: "approved.txt" },
    deny: { prompt: "stub:escalate touch denied.txt", absent: "denied.txt" },
  },
});
