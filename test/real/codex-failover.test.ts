// The REAL codex-cli 0.171.0 with --on-limit failover, through dist/umbel against the stub model, on
// two accounts of its own (docs/accounts.md, "Failover"): the shared failover scenario
// (scenarios/failover.ts) with codex's profile (providers/codex.ts): a limit on account cxa moves the
// worker to cxb, the rollout carried into cxb's managed home and `codex resume <id>`d there, and
// cxb's request (on cxb's key) holds the earlier messages.
import { setDefaultTimeout } from "bun:test";
import { codexFailoverProfile } from "./providers/codex.ts";
import { requireRealCodex } from "./real-codex.ts";
import { failoverScenarios } from "./scenarios/failover.ts";

setDefaultTimeout(240_000);

const codex = requireRealCodex("test/real/codex-failover.test.ts");

failoverScenarios(codexFailoverProfile(codex));
