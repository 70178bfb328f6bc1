import { describe, expect, test } from "bun:test";
import { describeAccounts } from "../../../src/core/accounts/list.ts";
import { unseen } from "../../../src/core/accounts/placement.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";
import { parseUserConfig } from "../../../src/core/worker/user-config.ts";
import { renderAccounts } from "../../../src/faces/verbs/render-accounts.ts";
import { listAccounts } from "../../../src/operations/accounts/list.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

const CONFIG = parseUserConfig(
  `[claude]
env = ["CLAUDE_CODE_OAUTH_TOKEN"]
[accounts.work]
provider = "claude"
home = "~/.claude-work"
env = { CLAUDE_CODE_OAUTH_TOKEN = "WORK_TOKEN" }
[accounts.api]
provider = "claude"
env = { ANTHROPIC_API_KEY = "TEAM_KEY" }
`,
  "/c.toml",
);

describe("umbel accounts", () => {
  test("each provider's default, then its accounts: home, billing from names, live workers, each record's windows and last limit", () => {
    const r = describeAccounts({
      config: CONFIG,
      providers: [getProvider("claude"), getProvider("codex")],
      hostEnv: { CLAUDE_CODE_OAUTH_TOKEN: "t", WORK_TOKEN: "w" },
      workers: [
        { name: "a", provider: "claude", account: "work", state: "busy" },
        { name: "b", provider: "claude", account: "work", state: "dead" },
        { name: "c", provider: "claude", account: null, state: "idle" },
        { name: "d", provider: "codex", state: "starting" },
      ],
      expand: (home) => home.replace("~", "/home/u"),
      records: [
        {
          ...unseen("claude", "work"),
          windows: [
            { name: "five_hour", usedPercent: 93, resetsAt: "2026-12-03T12:00:00.000Z", minutes: 300 },
          ],
          seenAt: "2026-12-03T09:00:00.000Z",
          from: "a",
        },
        {
          ...unseen("claude", "api"),
          lastLimit: {
            at: "2026-12-03T08:00:00.000Z",
            worker: "z",
            limit: { window: "five_hour", resetsAt: "2026-12-03T13:00:00.000Z", message: null },
          },
        },
        unseen("codex", null),
      ],
      now: Date.parse("2026-12-03T09:03:00.000Z"),
    });
    expect(r.accounts).toEqual([
      {
        name: null,
        provider: "claude",
        home: null,
        env: ["CLAUDE_CODE_OAUTH_TOKEN"],
        billing: { route: "subscription", via: [] },
        workers: ["c"],
        windows: null,
        lastLimit: null,
      },
      {
        name: "api",
        provider: "claude",
        home: null,
        env: ["ANTHROPIC_API_KEY"],
        billing: { route: "api-key", via: ["ANTHROPIC_API_KEY"] },
        workers: [],
        windows: null,
        lastLimit: {
          at: "2026-12-03T08:00:00.000Z",
          worker: "z",
          limit: { window: "five_hour", resetsAt: "2026-12-03T13:00:00.000Z", message: null },
        },
      },
      {
        name: "work",
        provider: "claude",
        home: "/home/u/.claude-work",
        env: ["CLAUDE_CODE_OAUTH_TOKEN"],
        billing: { route: "subscription", via: [] },
        workers: ["a"],
        windows: {
          windows: [
            { name: "five_hour", usedPercent: 93, resetsAt: "2026-12-03T12:00:00.000Z", minutes: 300 },
          ],
          seenAt: "2026-12-03T09:00:00.000Z",
          ageMs: 180_000,
          from: "a",
        },
        lastLimit: null,
      },
      {
        name: null,
        provider: "codex",
        home: null,
        env: [],
        billing: { route: "subscription", via: [] },
        workers: ["d"],
        windows: null,
        lastLimit: null,
      },
    ]);
    const text = renderAccounts(r);
    expect(text).toContain("api-key (ANTHROPIC_API_KEY)");
    expect(text).not.toContain("windows: unknown");
    const lines = text.split("\n");
    expect(lines[0]).toMatch(/^ACCOUNT\s+PROVIDER\s+BILLING\s+WORKERS\s+WINDOWS\s+LAST LIMIT\s+HOME$/);
    expect(lines.find((l) => l.startsWith("work "))).toContain("5h 93% ↻12:00Z (3m ago)");
    expect(lines.find((l) => l.startsWith("api "))).toContain("five_hour ↻13:00Z (z)");
  });

  test("on in-memory ports: the config file's accounts, ~ against HOME", async () => {
    const w = createFakeWorld({ env: { HOME: "/home/u" } });
    w.files.set("/state/config.toml", '[accounts.w]\nprovider = "gemini"\nhome = "~/g"\n');
    const r = await listAccounts(w.deps);
    expect(r.accounts.find((a) => a.name === "w")).toMatchObject({ provider: "gemini", home: "/home/u/g" });
    expect(r.accounts.filter((a) => a.name === null).map((a) => a.provider)).toEqual([
      "claude",
      "codex",
      "gemini",
      "opencode",
    ]);
  });
});
