// The REAL codex-cli 0.171.0 on two accounts of one machine, through dist/umbel against the stub
// model (issue 24): each account is a home of its own whose auth.json holds its key; umbel's managed
// CODEX_HOME for the account links that auth.json, and the stub tells the accounts apart by the
// bearer token codex sends, limiting account a while b has headroom.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stubProviderToml } from "../helpers/codex-world.ts";
import { limit } from "../stub-model/limits.ts";
import type { StubRequest } from "../stub-model/types.ts";
import { CODEX_SPAWN_FLAGS, type CodexWorld, makeCodexWorld } from "./providers/codex.ts";
import { requireRealCodex } from "./real-codex.ts";
import { drive, json } from "./scenarios/drive.ts";

setDefaultTimeout(180_000);

const codex = requireRealCodex("test/real/codex-accounts.test.ts");

const KEYS = { a: "sk-account-a-0123456789", b: "sk-account-b-0123456789" };
const accountOf = (request: StubRequest): "a" | "b" | null => {
  const auth = request.headers.authorization ?? "";
  if (auth.includes(KEYS.a)) return "a";
  if (auth.includes(KEYS.b)) return "b";
  return null;
};

let world: CodexWorld | undefined;
let limitA = false;

beforeAll(async () => {
  if (!codex) return;
  world = await makeCodexWorld(codex);
  const { sb, stub } = world;
  const homes: Record<string, string> = {};
  for (const account of ["a", "b"] as const) {
    const home = join(sb.dir, `codex-${account}`);
    mkdirSync(home, { recursive: true, mode: 0o700 });
    // requires_openai_auth: codex signs its requests to the stub with the sign-in of auth.json.
    const toml = stubProviderToml(stub.url).replace(
      'wire_api = "responses"',
      'wire_api = "responses"\nrequires_openai_auth = true',
    );
    writeFileSync(join(home, "config.toml"), toml, { mode: 0o600 });
    writeFileSync(
      join(home, "auth.json"),
      `${JSON.stringify({ auth_mode: "apikey", OPENAI_API_KEY: KEYS[account] })}\n`,
      { mode: 0o600 },
    );
    homes[account] = home;
  }
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(sb.root, "config.toml"),
    `[accounts.a]
provider = "codex"
home = "${homes.a}"

[accounts.b]
provider = "codex"
home = "${homes.b}"
`,
  );
  stub.setRule((request) =>
    accountOf(request) === "a" && limitA ? { reply: limit(1800, "pro") } : undefined,
  );
});
afterAll(async () => {
  await world?.dispose();
});

const turnOn = (name: string, prompt: string) => drive(() => world as CodexWorld, "90s").turn(name, prompt);

describe.skipIf(!codex)("codex on two accounts", () => {
  test("spawn --account pins a worker: its requests carry the key of that account's auth.json", async () => {
    const { sb, stub } = world as CodexWorld;
    for (const account of ["a", "b"] as const) {
      const spawned = await sb.umbel([
        "spawn",
        `cx-${account}`,
        ...CODEX_SPAWN_FLAGS,
        "--account",
        account,
        "--json",
      ]);
      expect({ account, code: spawned.code, stderr: spawned.stderr }).toEqual({
        account,
        code: 0,
        stderr: "",
      });
      const t = await turnOn(`cx-${account}`, `hello from ${account}`);
      expect({ account, code: t.code, reason: t.outcome.reason }).toEqual({
        account,
        code: 0,
        reason: "stop",
      });
      const mains = stub.mainRequests().filter((r) => r.main?.prompt === `hello from ${account}`);
      expect(mains.length).toBeGreaterThan(0);
      expect(mains.map(accountOf)).toEqual(mains.map(() => account));
      expect(json((await sb.umbel(["status", `cx-${account}`, "--json"])).stdout).account).toBe(account);
    }
  });

  test("a limit on account a ends its turn limited (120) while account b answers", async () => {
    const { sb } = world as CodexWorld;
    limitA = true;
    try {
      const a = await turnOn("cx-a", "second from a");
      expect({ code: a.code, reason: a.outcome.reason }).toEqual({ code: 120, reason: "limited" });
      const b = await turnOn("cx-b", "second from b");
      expect({ code: b.code, reason: b.outcome.reason }).toEqual({ code: 0, reason: "stop" });
    } finally {
      limitA = false;
    }
    await sb.umbel(["kill", "cx-a", "--purge"]);
    await sb.umbel(["kill", "cx-b", "--purge"]);
  });
});
