// The REAL codex-cli 0.171.0 on two accounts of one machine, through dist/umbel against the stub
// model (issue 24): the shared accounts scenario (scenarios/accounts.ts) with codex's profile
// (providers/codex.ts): each account is a home of its own whose auth.json holds its key; umbel's
// managed CODEX_HOME for the account links that auth.json, and the stub tells the accounts apart by
// the bearer token codex sends, limiting account a while b has headroom.
import { setDefaultTimeout } from "bun:test";
import { codexAccountsProfile } from "./providers/codex.ts";
import { requireRealCodex } from "./real-codex.ts";
import { accountsScenarios } from "./scenarios/accounts.ts";

setDefaultTimeout(180_000);

const codex = requireRealCodex("test/real/codex-accounts.test.ts");

accountsScenarios(codexAccountsProfile(codex));
