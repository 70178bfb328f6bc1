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
import { writeAccounts } from "./providers/accounts.ts";
import { CODEX_SPAWN_FLAGS, type CodexWorld, makeCodexWorld } from "./providers/codex.ts";
import { requireRealCodex } from "./real-codex.ts";
import { drive, json } from "./scenarios/drive.ts";

setDefaultTimeout(180_000);

const codex = requireRealCodex("test/real/codex-accounts.test.ts");

const KEYS = { default: "sk-default-0123456789", a: "sk-account-a-0123456789", b: "sk-account-b-0123456789" };
type Account = keyof typeof KEYS;
const accountOf = (request: StubRequest): Account | null => {
  const auth = request.headers.authorization ?? "";
  return (Object.keys(KEYS) as Account[]).find((account) => auth.includes(KEYS[account])) ?? null;
};
/** The rate-limit headers codex writes into its rollout's token_count: the primary window used so much. */
const windows = (primary: string) => ({
  "x-codex-primary-used-percent": primary,
  "x-codex-primary-window-minutes": "300",
  "x-codex-primary-reset-at": "{now+3600}",
  "x-codex-secondary-used-percent": "10",
  "x-codex-secondary-window-minutes": "10080",
  "x-codex-secondary-reset-at": "{now+200000}",
});
const USED: Record<Account, string> = { default: "95", a: "97", b: "20" };
/** The accounts whose every main request is a usage limit, now. */
const limited = new Set<Account>();

let world: CodexWorld | undefined;

beforeAll(async () => {
  if (!codex) return;
  world = await makeCodexWorld(codex);
  const { sb, stub } = world;
  const homes: Record<string, string> = {};
  for (const account of ["default", "a", "b"] as const) {
    // The default sign-in is the user's CODEX_HOME, signed in the same way.
    const home = account === "default" ? world.userHome : join(sb.dir, `codex-${account}`);
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
  writeAccounts(sb, [
    { name: "a", provider: "codex", home: homes.a ?? "" },
    { name: "b", provider: "codex", home: homes.b ?? "" },
  ]);
  stub.setRule((request) => {
    const account = accountOf(request);
    if (account === null) return undefined;
    if (limited.has(account)) return { reply: limit(1800, "pro") };
    return { headers: windows(USED[account]) };
  });
});
afterAll(async () => {
  await world?.dispose();
});

const turnOn = (name: string, prompt: string) => drive(() => world as CodexWorld, "90s").turn(name, prompt);

type Row = {
  name: string | null;
  provider: string;
  windows: { windows: { name: string; usedPercent: number }[] } | null;
  lastLimit: { worker: string } | null;
};
const rowOf = async (name: string | null): Promise<Row | undefined> => {
  const rows = JSON.parse((await (world as CodexWorld).sb.umbel(["accounts", "--json"])).stdout) as Row[];
  return rows.find((row) => row.provider === "codex" && row.name === name);
};
const primary = (row: Row | undefined) =>
  row?.windows?.windows.find((w) => w.name === "primary")?.usedPercent;
const requestsOf = (prompt: string) =>
  (world as CodexWorld).stub.mainRequests().filter((r) => r.main?.prompt === prompt);
const spawn = (name: string, flags: string[]) =>
  (world as CodexWorld).sb.umbel(["spawn", name, ...CODEX_SPAWN_FLAGS, ...flags, "--json"]);

describe.skipIf(!codex)("codex on two accounts and its default sign-in", () => {
  test("spawn --account pins a worker: its requests carry the key of that account's auth.json", async () => {
    const { sb } = world as CodexWorld;
    for (const account of ["default", "a", "b"] as const) {
      const spawned = await spawn(`cx-${account}`, account === "default" ? [] : ["--account", account]);
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
      const mains = requestsOf(`hello from ${account}`);
      expect(mains.length).toBeGreaterThan(0);
      expect(mains.map(accountOf)).toEqual(mains.map(() => account));
      const status = json((await sb.umbel(["status", `cx-${account}`, "--json"])).stdout);
      expect(status.account ?? null).toBe(account === "default" ? null : account);
    }
  });

  test("accounts shows each one's windows from its rollouts; --account auto places on the most headroom", async () => {
    const { sb } = world as CodexWorld;
    expect([await rowOf(null), await rowOf("a"), await rowOf("b")].map(primary)).toEqual([95, 97, 20]);
    const placed = await spawn("cx-auto", ["--account", "auto"]);
    expect(placed.code).toBe(0);
    expect((json(placed.stdout).placement as { account: string | null }).account).toBe("b");
    const t = await turnOn("cx-auto", "hello from auto");
    expect(t.code).toBe(0);
    expect(requestsOf("hello from auto").map(accountOf)).toEqual(
      requestsOf("hello from auto").map(() => "b"),
    );
    expect(json((await sb.umbel(["status", "cx-auto", "--json"])).stdout).account).toBe("b");
  });

  test("a limit on account a ends its turn limited (120), is kept as a's last limit, and b still answers", async () => {
    limited.add("a");
    try {
      const a = await turnOn("cx-a", "second from a");
      expect({ code: a.code, reason: a.outcome.reason }).toEqual({ code: 120, reason: "limited" });
      expect((await rowOf("a"))?.lastLimit?.worker).toBe("cx-a");
      const b = await turnOn("cx-b", "second from b");
      expect({ code: b.code, reason: b.outcome.reason }).toEqual({ code: 0, reason: "stop" });
    } finally {
      limited.delete("a");
    }
  });

  test("no headroom on any account: --account auto exits 120 naming the earliest reset", async () => {
    const { sb } = world as CodexWorld;
    for (const account of ["default", "a", "b"] as const) limited.add(account);
    try {
      for (const name of ["cx-default", "cx-b"]) {
        const t = await turnOn(name, `used up ${name}`);
        expect({ name, code: t.code }).toEqual({ name, code: 120 });
      }
      const none = await sb.umbel(["spawn", "cx-none", ...CODEX_SPAWN_FLAGS, "--account", "auto"]);
      expect(none.code).toBe(120);
      expect(none.stderr).toMatch(/no codex account has headroom; the earliest reset is \d{4}-/);
    } finally {
      limited.clear();
    }
    for (const name of ["cx-default", "cx-a", "cx-b", "cx-auto"]) await sb.umbel(["kill", name, "--purge"]);
  });
});
