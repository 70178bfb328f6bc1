// The REAL Claude Code 2.1.332 on two accounts of one machine, through dist/umbel against the stub
// model (issue 24): each account is a config dir of its own and a subscriber's token by name; the
// stub tells them apart by the token claude sends, and limits account a while b has headroom.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { limit } from "../stub-model/limits.ts";
import type { StubRequest } from "../stub-model/types.ts";
import { seedClaudeHome } from "./claude-home.ts";
import { type ClaudeWorld, makeClaudeWorld } from "./providers/claude.ts";
import { requireRealClaude } from "./real-bin.ts";
import { drive, json } from "./scenarios/drive.ts";

setDefaultTimeout(180_000);

const claude = requireRealClaude("test/real/claude-accounts.test.ts");

/** A subscriber's token per account (what claude sends the stub as its bearer token). */
const TOKENS = { a: "sk-ant-oat01-account-a-0123456789", b: "sk-ant-oat01-account-b-0123456789" };
/** A subscriber's claude, but for the token: each account maps its own (never --env CLAUDE_CODE_OAUTH_TOKEN). */
const SUBSCRIBER_FLAGS = [
  "CLAUDE_CODE_SUBSCRIPTION_TYPE",
  "CLAUDE_CODE_RATE_LIMIT_TIER",
  "CLAUDE_CODE_MAX_RETRIES",
].flatMap((name) => ["--env", name]);
const windows = (fiveHour: string) => ({
  "anthropic-ratelimit-unified-status": "allowed",
  "anthropic-ratelimit-unified-reset": "{now+3600}",
  "anthropic-ratelimit-unified-representative-claim": "five_hour",
  "anthropic-ratelimit-unified-5h-utilization": fiveHour,
  "anthropic-ratelimit-unified-5h-reset": "{now+3600}",
  "anthropic-ratelimit-unified-7d-utilization": "0.10",
  "anthropic-ratelimit-unified-7d-reset": "{now+200000}",
});
/** Which account a request came from, by its token; null: neither. */
const accountOf = (request: StubRequest): "a" | "b" | null => {
  const auth = `${request.headers.authorization ?? ""} ${request.headers["x-api-key"] ?? ""}`;
  if (auth.includes(TOKENS.a)) return "a";
  if (auth.includes(TOKENS.b)) return "b";
  return null;
};

let world: ClaudeWorld | undefined;
const homes = { a: "", b: "" };
/** While true, every main request of account a is a five-hour limit. */
let limitA = false;

beforeAll(async () => {
  if (!claude) return;
  world = await makeClaudeWorld(claude, { trusted: true, apiKey: "sk-ant-unused-0123456789abcdef" });
  const { sb, stub } = world;
  delete sb.env.ANTHROPIC_API_KEY;
  Object.assign(sb.env, {
    CLAUDE_CODE_SUBSCRIPTION_TYPE: "max",
    CLAUDE_CODE_RATE_LIMIT_TIER: "default_claude_max_20x",
    CLAUDE_CODE_MAX_RETRIES: "0",
    ACCOUNT_A_TOKEN: TOKENS.a,
    ACCOUNT_B_TOKEN: TOKENS.b,
  });
  for (const account of ["a", "b"] as const)
    homes[account] = seedClaudeHome(join(sb.dir, `account-${account}`), {
      apiKey: "sk-ant-unused-0123456789abcdef",
      trustedDirs: [sb.work],
    }).configDir;
  mkdirSync(sb.root, { recursive: true, mode: 0o700 });
  writeFileSync(
    join(sb.root, "config.toml"),
    `[accounts.a]
provider = "claude"
home = "${homes.a}"
env = { CLAUDE_CODE_OAUTH_TOKEN = "ACCOUNT_A_TOKEN" }

[accounts.b]
provider = "claude"
home = "${homes.b}"
env = { CLAUDE_CODE_OAUTH_TOKEN = "ACCOUNT_B_TOKEN" }
`,
  );
  stub.setRule((request) => {
    const account = accountOf(request);
    if (account === "a")
      return limitA
        ? { reply: limit(3600, "five_hour"), headers: windows("1.0") }
        : { headers: windows("0.97") };
    if (account === "b") return { headers: windows("0.20") };
    return undefined;
  });
});
afterAll(async () => {
  await world?.dispose();
});

const turnOn = async (name: string, prompt: string) =>
  drive(() => world as ClaudeWorld, "90s").turn(name, prompt);

describe.skipIf(!claude)("claude on two accounts", () => {
  test("spawn --account pins a worker: its requests carry that account's token, its transcript lands in that config dir", async () => {
    const { sb, stub } = world as ClaudeWorld;
    for (const account of ["a", "b"] as const) {
      const spawned = await sb.umbel([
        "spawn",
        `on-${account}`,
        "--account",
        account,
        ...SUBSCRIBER_FLAGS,
        "--start-timeout",
        "60s",
        "--json",
      ]);
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
      const mains = stub.mainRequests().filter((r) => r.main?.prompt === `hello from ${account}`);
      expect(mains.length).toBeGreaterThan(0);
      expect(mains.map(accountOf)).toEqual(mains.map(() => account));
      const projects = join(homes[account], "projects");
      expect(existsSync(projects) && readdirSync(projects).length > 0).toBe(true);
      const status = json((await sb.umbel(["status", `on-${account}`, "--json"])).stdout);
      expect(status.account).toBe(account);
    }
  });

  test("a limit on account a ends its turn limited (120) while account b answers", async () => {
    const { sb } = world as ClaudeWorld;
    limitA = true;
    try {
      const a = await turnOn("on-a", "second from a");
      expect({ code: a.code, reason: a.outcome.reason }).toEqual({ code: 120, reason: "limited" });
      expect(a.outcome.evidence.limit).toMatchObject({ window: "five_hour" });
      const b = await turnOn("on-b", "second from b");
      expect({ code: b.code, reason: b.outcome.reason }).toEqual({ code: 0, reason: "stop" });
    } finally {
      limitA = false;
    }
    await sb.umbel(["kill", "on-a", "--purge"]);
    await sb.umbel(["kill", "on-b", "--purge"]);
  });
});
