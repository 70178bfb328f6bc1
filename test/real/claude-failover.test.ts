// The REAL Claude Code 2.1.332 with --on-limit failover, through dist/umbel against the stub model,
// on two subscriber accounts of its own (docs/accounts.md, "Failover"): the shared failover scenario
// (scenarios/failover.ts) with claude's profile (providers/claude.ts): a limit on account a moves the
// worker to b, the transcript carried into b's config dir and resumed with --resume, and b's request
// (on b's token) holds the earlier messages; then a limit on b too ends limited with the earliest reset.
import { setDefaultTimeout } from "bun:test";
import { claudeFailoverProfile } from "./providers/claude.ts";
import { requireRealClaude } from "./real-bin.ts";
import { failoverScenarios } from "./scenarios/failover.ts";

setDefaultTimeout(240_000);

const claude = requireRealClaude("test/real/claude-failover.test.ts");

failoverScenarios(claudeFailoverProfile(claude));
