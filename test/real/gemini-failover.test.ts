// The REAL gemini-cli 0.61.0 with --on-limit failover, through dist/umbel against the stub model, on
// two accounts of its own (docs/accounts.md, "Failover"): at the daily quota on account ga the worker
// moves to gb; its chats stay in the worker's own GEMINI_CLI_HOME, so `gemini --resume <id>` on gb
// goes on with the same session, and the stub's record of the next request proves the earlier
// messages of the conversation arrived. gemini rolls the limited turn's prompt back, so umbel sends
// that prompt again rather than its continuation prompt.
import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { limit } from "../stub-model/limits.ts";
import { text } from "../stub-model/replies.ts";
import { limitedUntilTomorrow, writeAccounts } from "./providers/accounts.ts";
import { makeGeminiWorld } from "./providers/gemini.ts";
import { requireRealGemini } from "./real-gemini.ts";
import type { RealWorld } from "./scenarios/drive.ts";

setDefaultTimeout(240_000);

const gemini = requireRealGemini("test/real/gemini-failover.test.ts");
const json = (s: string) => JSON.parse(s) as Record<string, unknown> & { evidence: Record<string, unknown> };

let w: RealWorld;
let homes: string[];
beforeAll(async () => {
  if (!gemini) return;
  w = await makeGeminiWorld(gemini);
  // Each account's sign-in: its own .gemini (the stub is reached with the key the spawn passes by name).
  homes = ["ga", "gb"].map((account) => {
    const home = join(w.sb.dir, `acct-${account}`);
    mkdirSync(join(home, ".gemini"), { recursive: true, mode: 0o700 });
    writeFileSync(join(home, ".gemini", "oauth_creds.json"), `{"refresh_token":"${account}"}\n`, {
      mode: 0o600,
    });
    return home;
  });
  writeAccounts(w.sb, [
    { name: "ga", provider: "gemini", home: homes[0] ?? "" },
    { name: "gb", provider: "gemini", home: homes[1] ?? "" },
  ]);
  // The default sign-in is out until tomorrow: gb is the one place to go.
  limitedUntilTomorrow(w.sb, "gemini", null, "daily");
});
afterAll(async () => {
  await w?.dispose();
});

test.skipIf(!gemini)(
  "at the daily quota on account ga: the same turn finishes on gb, the session resumed in the worker's own home",
  async () => {
    const { sb, stub } = w;
    const spawned = await sb.umbel([
      "spawn",
      "fo",
      "--provider",
      "gemini",
      "--start-timeout",
      "60s",
      "--account",
      "ga",
      "--on-limit",
      "failover",
      "--env",
      "GEMINI_API_KEY",
      "--json",
    ]);
    expect(spawned.stderr).toBe("");
    expect(spawned.code).toBe(0);
    stub.script(text("first answer, on ga"));
    const sent1 = json(
      (await sb.umbel(["send", "fo", "--json"], { stdin: "remember the word heliotrope" })).stdout,
    );
    expect((await sb.umbel(["wait", "fo", "--after", String(sent1.baseline), "--timeout", "60s"])).code).toBe(
      0,
    );
    stub.script(limit(0, "daily"));
    const before = stub.mainRequests().length;
    const sent = json((await sb.umbel(["send", "fo", "--json"], { stdin: "spend my quota" })).stdout);
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
      evidence: { failover: [{ from: "ga", to: "gb", carried: "resumed", limit: { window: "daily" } }] },
    });
    expect(waited.code).toBe(0);
    const after = stub.mainRequests().slice(before);
    const last = JSON.stringify(after.at(-1)?.body);
    expect(last).toContain("remember the word heliotrope");
    expect(last).toContain("first answer, on ga");
    // 0.61.0 rolled the limited turn's prompt back: umbel sent it again (not the continuation prompt).
    expect(last).toContain("spend my quota");
    expect(last).not.toContain("Your usage limit has reset.");
    const link = join(sb.root, "sessions", "fo", "gemini", ".gemini", "oauth_creds.json");
    expect(readlinkSync(link)).toBe(join(homes[1] ?? "", ".gemini", "oauth_creds.json"));
    expect(json((await sb.umbel(["status", "fo", "--json"])).stdout)).toMatchObject({ account: "gb" });
  },
);
