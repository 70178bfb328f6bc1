// The real codex-cli 0.171.0 at a usage limit, through dist/umbel against the stub model
// (docs/limits.md): the shared limit scenario (scenarios/limits.ts) with codex's profile
// (providers/codex.ts): a 429 `usage_limit_reached` ends the turn at once and fires no hook; the
// rollout's task_complete (codex_error_info usage_limit_exceeded) and its token_count windows decide.
import { setDefaultTimeout } from "bun:test";
import { codexLimitProfile } from "./providers/codex.ts";
import { requireRealCodex } from "./real-codex.ts";
import { limitScenarios } from "./scenarios/limits.ts";

setDefaultTimeout(120_000);

const codex = requireRealCodex("test/real/codex-limits.test.ts");

limitScenarios(codexLimitProfile(codex));
