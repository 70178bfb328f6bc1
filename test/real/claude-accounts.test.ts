// The REAL Claude Code 2.1.332 on two accounts of one machine, through dist/umbel against the stub
// model (issue 24): each account is a config dir of its own and a subscriber's token by name; the
// stub tells them apart by the token claude sends, and limits account a while b has headroom.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { limit } from "../stub-model/limits.ts";
import type { StubRequest } from "../stub-model/types.ts";
import { seedClaudeHome } from "./claude-home.ts";
import { writeAccounts } from "./providers/accounts.ts";
import { type ClaudeWorld, makeClaudeWorld } from "./providers/claude.ts";
import { requireRealClaude } from "./real-bin.ts";
import { drive, json } from "./scenarios/drive.ts";

setDefaultTimeout(180_000);

const claude = requireRealClaude("test/real/claude-accounts.test.ts");

/** A subscriber's token per account (what claude sends the stub as its bearer token). */
const TOKENS = {
  default: "sk-ant-oat01-default-0123456789",
  a: "sk-ant-oat01-account-a-0123456789",
  b: "sk-ant-oat01-account-b-0123456789",
};
type Account = keyof typeof TOKENS;
const windows = (fiveHour: string) => ({
  "anthropic-ratelimit-unified-status": "allowed",
  "anthropic-ratelimit-unified-reset": "{now+3600}",
  "anthropic-ratelimit-unified-representative-claim": "five_hour",
  "anthropic-ratelimit-unified-5h-utilization": fiveHour,
  "anthropic-ratelimit-unified-5h-reset": "{now+3600}",
  "anthropic-ratelimit-unified-7d-utilization": "0.10",
  "anthropic-ratelimit-unified-7d-reset": "{now+200000}",
});
/** Which account a request came from, by its token; null: none of them. */
const accountOf = (request: StubRequest): Account | null => {
  const auth = `${request.headers.authorization ?? ""} ${request.headers["x-api-key"] ?? ""}`;
  return (Object.keys(TOKENS) as Account[]).find((account) => auth.includes(TOKENS[account])) ?? null;
};

let world: ClaudeWorld | undefined;
const homes = { a: "", b: "" };
/** The accounts whose every main request is a five-hour limit, now. */
const limited = new Set<Account>();
/** Each account's five-hour window while it is not limited (the stub's answer headers). */
const USED: Record<Account, string> = { default: "0.95", a: "0.97", b: "0.20" };
/** A claude.ai subscriber offline (providers/claude.ts), but for the token: each account has its own. */
const SUBSCRIBER = {
  CLAUDE_CODE_SUBSCRIPTION_TYPE: "max",
  CLAUDE_CODE_RATE_LIMIT_TIER: "default_claude_max_20x",
  CLAUDE_CODE_MAX_RETRIES: "0",
};

beforeAll(async () => {
  if (!claude) return;
  world = await makeClaudeWorld(claude, { trusted: true, apiKey: "sk-ant-unused-0123456789abcdef" });
  const { sb, stub } = world;
  delete sb.env.ANTHROPIC_API_KEY;
  Object.assign(sb.env, SUBSCRIBER, {
    CLAUDE_CODE_OAUTH_TOKEN: TOKENS.default,
    ACCOUNT_A_TOKEN: TOKENS.a,
    ACCOUNT_B_TOKEN: TOKENS.b,
  });
  for (const account of ["a", "b"] as const)
    homes[account] = seedClaudeHome(join(sb.dir, `account-${account}`), {
      apiKey: "sk-ant-unused-0123456789abcdef",
      trustedDirs: [sb.work],
    }).configDir;
  // The default sign-in gets the subscriber's names from [claude]; an account drops the token.
  writeAccounts(
    sb,
    (["a", "b"] as const).map((name) => ({
      name,
      provider: "claude",
      home: homes[name],
      env: { CLAUDE_CODE_OAUTH_TOKEN: `ACCOUNT_${name.toUpperCase()}_TOKEN` },
    })),
    { provider: "claude", names: ["CLAUDE_CODE_OAUTH_TOKEN", ...Object.keys(SUBSCRIBER)] },
  );
  stub.setRule((request) => {
    const account = accountOf(request);
    if (account === null) return undefined;
    if (limited.has(account)) return { reply: limit(3600, "five_hour"), headers: windows("1.0") };
    return { headers: windows(USED[account]) };
  });
});
afterAll(async () => {
  await world?.dispose();
});

const turnOn = async (name: string, prompt: string) =>
  drive(() => world as ClaudeWorld, "90s").turn(name, prompt);

type Row = {
  name: string | null;
  provider: string;
  workers: string[];
  windows: { windows: { name: string; usedPercent: number }[] } | null;
  lastLimit: { worker: string } | null;
};
const rowOf = async (name: string | null): Promise<Row | undefined> => {
  const r = await (world as ClaudeWorld).sb.umbel(["accounts", "--json"]);
  const rows = JSON.parse(r.stdout) as Row[];
  return rows.find((row) => row.provider === "claude" && row.name === name);
};
const fiveHour = (row: Row | undefined) =>
  row?.windows?.windows.find((w) => w.name === "five_hour")?.usedPercent;
const requestsOf = (prompt: string) =>
  (world as ClaudeWorld).stub.mainRequests().filter((r) => r.main?.prompt === prompt);
const spawn = (name: string, flags: string[]) =>
  (world as ClaudeWorld).sb.umbel(["spawn", name, ...flags, "--start-timeout", "60s", "--json"]);

describe.skipIf(!claude)("claude on two accounts and its default sign-in", () => {
  test("spawn --account pins a worker: its requests carry that account's token, its transcript lands in that config dir", async () => {
    const { sb } = world as ClaudeWorld;
    for (const account of ["default", "a", "b"] as const) {
      const spawned = await spawn(`on-${account}`, account === "default" ? [] : ["--account", account]);
      expect({ account, code: spawned.code, stderr: spawned.stderr }).toEqual({
        account,
        code: 0,
        stderr: "",
      });
      const t = await turnOn(`on-${account}`, `hello from ${account}`);
      expect({ account, code: t.code, reason: t.outcome.reason }).toEqual({
        account,
        code: 0,
        reason: "stop",
      });
      const mains = requestsOf(`hello from ${account}`);
      expect(mains.length).toBeGreaterThan(0);
      expect(mains.map(accountOf)).toEqual(mains.map(() => account));
      if (account !== "default") {
        const projects = join(homes[account], "projects");
        expect(existsSync(projects) && readdirSync(projects).length > 0).toBe(true);
      }
      const status = json((await sb.umbel(["status", `on-${account}`, "--json"])).stdout);
      expect(status.account ?? null).toBe(account === "default" ? null : account);
    }
  });

  test("accounts shows each one's windows as its workers saw them; --account auto places on the most headroom", async () => {
    const { sb } = world as ClaudeWorld;
    expect([await rowOf(null), await rowOf("a"), await rowOf("b")].map(fiveHour)).toEqual([95, 97, 20]);
    const placed = await spawn("auto-1", ["--account", "auto"]);
    expect({ code: placed.code }).toEqual({ code: 0 });
    const placement = json(placed.stdout).placement as { account: string | null; reason: string };
    expect(placement.account).toBe("b");
    expect(placement.reason).toContain("the most headroom (80% headroom)");
    expect(placed.stderr).toContain("placed by --account auto");
    const t = await turnOn("auto-1", "hello from auto");
    expect(t.code).toBe(0);
    expect(requestsOf("hello from auto").map(accountOf)).toContain("b");
    expect(requestsOf("hello from auto").map(accountOf)).not.toContain("a");
    expect(json((await sb.umbel(["status", "auto-1", "--json"])).stdout).account).toBe("b");
    expect((await sb.umbel(["logs", "auto-1"])).stdout).toContain("umbel:placement");
  });

  test("a limit on account a ends its turn limited (120), is kept as a's last limit, and b still answers", async () => {
    limited.add("a");
    try {
      const a = await turnOn("on-a", "second from a");
      expect({ code: a.code, reason: a.outcome.reason }).toEqual({ code: 120, reason: "limited" });
      expect(a.outcome.evidence.limit).toMatchObject({ window: "five_hour" });
      expect((await rowOf("a"))?.lastLimit?.worker).toBe("on-a");
      const b = await turnOn("on-b", "second from b");
      expect({ code: b.code, reason: b.outcome.reason }).toEqual({ code: 0, reason: "stop" });
    } finally {
      limited.delete("a");
    }
  });

  test("no headroom on any account: --account auto exits 120 naming the earliest reset, nothing made", async () => {
    const { sb } = world as ClaudeWorld;
    for (const account of ["default", "a", "b"] as const) limited.add(account);
    try {
      for (const name of ["on-default", "on-b"]) {
        const t = await turnOn(name, `used up ${name}`);
        expect({ name, code: t.code }).toEqual({ name, code: 120 });
      }
      const none = await sb.umbel(["spawn", "auto-none", "--account", "auto"]);
      expect(none.code).toBe(120);
      expect(none.stderr).toMatch(/no claude account has headroom; the earliest reset is \d{4}-/);
      expect((await sb.umbel(["status", "auto-none"])).code).not.toBe(0);
    } finally {
      limited.clear();
    }
    for (const name of ["on-default", "on-a", "on-b", "auto-1"]) await sb.umbel(["kill", name, "--purge"]);
  });
});
