// The REAL codex-cli 0.171.0 with --on-limit failover, through dist/umbel against the stub model, on
// two accounts of its own (docs/accounts.md, "Failover"): a limit on account cxa moves the worker to
// cxb, the rollout carried into cxb's managed home and `codex resume <id>`d there, and the stub's
// record of cxb's request proves the earlier messages of the conversation arrived, on cxb's key.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { join } from "node:path";
import { seedCodexWorld, stubProviderToml } from "../helpers/codex-world.ts";
import { limit } from "../stub-model/limits.ts";
import { text } from "../stub-model/replies.ts";
import { limitedUntilTomorrow, writeAccounts } from "./providers/accounts.ts";
import { CODEX_SPAWN_FLAGS, type CodexWorld, makeCodexWorld } from "./providers/codex.ts";
import { requireRealCodex } from "./real-codex.ts";

setDefaultTimeout(240_000);

const codex = requireRealCodex("test/real/codex-failover.test.ts");
const KEY_A = "sk-account-a-0123456789";
const KEY_B = "sk-account-b-0123456789";
const json = (s: string) => JSON.parse(s) as Record<string, unknown> & { evidence: Record<string, unknown> };

let w: CodexWorld;
beforeAll(async () => {
  if (!codex) return;
  w = await makeCodexWorld(codex);
  Object.assign(w.sb.env, { KEY_A, KEY_B });
  // The stub provider's key comes from STUB_TOKEN, which each account maps from its own variable.
  const toml = `${stubProviderToml(w.stub.url)}env_key = "STUB_TOKEN"\n`;
  const homes = ["a", "b"].map(
    (account) => seedCodexWorld(join(w.sb.dir, `acct-${account}`), toml).userCodexHome,
  );
  writeAccounts(w.sb, [
    { name: "cxa", provider: "codex", home: homes[0] ?? "", env: { STUB_TOKEN: "KEY_A" } },
    { name: "cxb", provider: "codex", home: homes[1] ?? "", env: { STUB_TOKEN: "KEY_B" } },
  ]);
  // The default sign-in is out until tomorrow: cxb is the one place to go.
  limitedUntilTomorrow(w.sb, "codex", null, "primary");
});
afterAll(async () => {
  await w?.dispose();
});

test.skipIf(!codex)(
  "a limit on account cxa: the same turn finishes on cxb, resumed, with the conversation's earlier messages on cxb's key",
  async () => {
    const { sb, stub } = w;
    const spawned = await sb.umbel([
      "spawn",
      "fo",
      ...CODEX_SPAWN_FLAGS,
      "--account",
      "cxa",
      "--on-limit",
      "failover",
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
    stub.script(limit(600));
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
      evidence: { failover: [{ from: "cxa", to: "cxb", carried: "resumed" }] },
    });
    expect(waited.code).toBe(0);
    const mains = stub.mainRequests();
    const onB = mains.filter((r) => String(r.headers.authorization ?? "").includes(KEY_B));
    const onA = mains.filter((r) => String(r.headers.authorization ?? "").includes(KEY_A));
    expect(onA.length).toBeGreaterThanOrEqual(2);
    expect(onB.length).toBeGreaterThanOrEqual(1);
    // cxb's request carries the whole conversation: cxa's first turn and the limited one, then the continuation.
    const body = JSON.stringify(onB[0]?.body);
    expect(body).toContain("remember the word heliotrope");
    expect(body).toContain("first answer, on a");
    expect(body).toContain("limit two");
    expect(body).toContain("Your usage limit has reset.");
    expect(json((await sb.umbel(["status", "fo", "--json"])).stdout)).toMatchObject({ account: "cxb" });
  },
);
