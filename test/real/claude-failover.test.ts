// The REAL Claude Code 2.1.332 with --on-limit failover, through dist/umbel against the stub model,
// on two subscriber accounts of its own (docs/accounts.md, "Failover"): a limit on account a moves
// the worker to b, the transcript carried into b's config dir and resumed with --resume, and the
// stub's record of b's request proves the earlier messages of the conversation arrived, on b's token.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { limit } from "../stub-model/limits.ts";
import { text } from "../stub-model/replies.ts";
import { seedClaudeHome } from "./claude-home.ts";
import { limitedUntilTomorrow, writeAccounts } from "./providers/accounts.ts";
import { type ClaudeWorld, makeClaudeWorld } from "./providers/claude.ts";
import { requireRealClaude } from "./real-bin.ts";

setDefaultTimeout(240_000);

const claude = requireRealClaude("test/real/claude-failover.test.ts");
const TOKEN_A = "sk-ant-oat01-mock-account-a-0123456789";
const TOKEN_B = "sk-ant-oat01-mock-account-b-0123456789";
const KEY = "sk-ant-unused-0123456789abcdef";
/** A claude.ai subscriber offline (providers/claude.ts SUBSCRIBER), the token per account. */
const SUBSCRIBER = {
  CLAUDE_CODE_SUBSCRIPTION_TYPE: "max",
  CLAUDE_CODE_RATE_LIMIT_TIER: "default_claude_max_20x",
  CLAUDE_CODE_MAX_RETRIES: "0",
};
const FLAGS = Object.keys(SUBSCRIBER).flatMap((name) => ["--env", name]);
const json = (s: string) => JSON.parse(s) as Record<string, unknown> & { evidence: Record<string, unknown> };

let w: ClaudeWorld;
beforeAll(async () => {
  if (!claude) return;
  w = await makeClaudeWorld(claude, { trusted: true, apiKey: KEY });
  delete w.sb.env.ANTHROPIC_API_KEY;
  Object.assign(w.sb.env, SUBSCRIBER, { TOKEN_A, TOKEN_B });
  const homes = ["a", "b"].map(
    (account) =>
      seedClaudeHome(join(w.sb.dir, `acct-${account}`), { apiKey: KEY, trustedDirs: [w.sb.work] }).configDir,
  );
  writeAccounts(w.sb, [
    { name: "a", provider: "claude", home: homes[0] ?? "", env: { CLAUDE_CODE_OAUTH_TOKEN: "TOKEN_A" } },
    { name: "b", provider: "claude", home: homes[1] ?? "", env: { CLAUDE_CODE_OAUTH_TOKEN: "TOKEN_B" } },
  ]);
  // The default sign-in is out until tomorrow: b is the one place to go.
  limitedUntilTomorrow(w.sb, "claude", null, "five_hour");
});
afterAll(async () => {
  await w?.dispose();
});

test.skipIf(!claude)(
  "a limit on account a: the same turn finishes on b, resumed, with the conversation's earlier messages on b's token",
  async () => {
    const { sb, stub } = w;
    const spawned = await sb.umbel([
      "spawn",
      "fo",
      "--account",
      "a",
      "--on-limit",
      "failover",
      ...FLAGS,
      "--json",
    ]);
    expect(spawned.stderr).toBe("");
    expect(spawned.code).toBe(0);
    stub.script(text("first answer, on a"));
    const sent1 = json(
      (await sb.umbel(["send", "fo", "--json"], { stdin: "remember the word heliotrope" })).stdout,
    );
    expect((await sb.umbel(["wait", "fo", "--after", String(sent1.baseline), "--timeout", "60s"])).code).toBe(
      0,
    );
    // The limited turn's one request answers with the limit; b's take the stub's default (an echo).
    stub.script(limit(3600, "five_hour"));
    const sent = json((await sb.umbel(["send", "fo", "--json"], { stdin: "limit two" })).stdout);
    const waited = await sb.umbel([
      "wait",
      "fo",
      "--after",
      String(sent.baseline),
      "--timeout",
      "150s",
      "--json",
    ]);
    const outcome = json(waited.stdout);
    expect(outcome).toMatchObject({
      reason: "stop",
      evidence: {
        failover: [{ from: "a", to: "b", carried: "resumed", limit: { window: "five_hour" } }],
      },
    });
    expect(waited.code).toBe(0);
    // claude 2.1.332 sends a one-token "quota" request at each start (a's, then b's): not the turn's.
    const mains = stub.mainRequests().filter((r) => r.main?.prompt !== "quota");
    const onB = mains.filter((r) => String(r.headers.authorization ?? "").includes(TOKEN_B));
    const onA = mains.filter((r) => String(r.headers.authorization ?? "").includes(TOKEN_A));
    expect(onA.length).toBe(2);
    expect(onB.length).toBe(1);
    // b's request carries the whole conversation: a's first turn and the limited one, then the continuation.
    const body = JSON.stringify(onB[0]?.body);
    expect(body).toContain("remember the word heliotrope");
    expect(body).toContain("first answer, on a");
    expect(body).toContain("limit two");
    expect(body).toContain("Your usage limit has reset.");
    expect(json((await sb.umbel(["status", "fo", "--json"])).stdout)).toMatchObject({ account: "b" });
  },
);

test.skipIf(!claude)(
  "then a limit on b too: no account has headroom (a until its reset, the default until tomorrow): limited (120) with the earliest reset",
  async () => {
    const { sb, stub } = w;
    stub.script(limit(1800, "five_hour"));
    const sent = json((await sb.umbel(["send", "fo", "--json"], { stdin: "limit three" })).stdout);
    const waited = await sb.umbel([
      "wait",
      "fo",
      "--after",
      String(sent.baseline),
      "--timeout",
      "90s",
      "--json",
    ]);
    const outcome = json(waited.stdout);
    expect(outcome).toMatchObject({ reason: "limited", evidence: { limit: { window: "five_hour" } } });
    expect(waited.code).toBe(120);
    // b's own reset (30 min) comes before a's (an hour from its limit) and the default's (tomorrow).
    const earliest = Date.parse(String(outcome.evidence.earliestReset));
    expect(earliest - Date.now()).toBeGreaterThan(1_500_000);
    expect(earliest - Date.now()).toBeLessThan(1_900_000);
    expect(String(outcome.evidence.detail)).toContain("no account has headroom");
    expect(json((await sb.umbel(["status", "fo", "--json"])).stdout)).toMatchObject({ account: "b" });
  },
);
