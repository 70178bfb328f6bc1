// The REAL Claude Code 2.1.332 on two accounts of one machine, through dist/umbel against the stub
// model (issue 24): the shared accounts scenario (scenarios/accounts.ts) with claude's profile
// (providers/claude.ts): each account is a config dir of its own and a subscriber's token by name;
// the stub tells them apart by the token claude sends, and limits account a while b has headroom.
import { setDefaultTimeout } from "bun:test";
import { claudeAccountsProfile } from "./providers/claude.ts";
import { requireRealClaude } from "./real-bin.ts";
import { accountsScenarios } from "./scenarios/accounts.ts";

setDefaultTimeout(180_000);

const claude = requireRealClaude("test/real/claude-accounts.test.ts");

accountsScenarios(claudeAccountsProfile(claude));
