import { describe, expect, test } from "bun:test";
import { describeAccounts, renderAccounts } from "../../../src/core/accounts/list.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";
import { parseUserConfig } from "../../../src/core/worker/user-config.ts";
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
  test("each provider's default, then its accounts: home, billing from names, live workers, windows unknown", () => {
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
      },
      {
        name: "api",
        provider: "claude",
        home: null,
        env: ["ANTHROPIC_API_KEY"],
        billing: { route: "api-key", via: ["ANTHROPIC_API_KEY"] },
        workers: [],
        windows: null,
      },
      {
        name: "work",
        provider: "claude",
        home: "/home/u/.claude-work",
        env: ["CLAUDE_CODE_OAUTH_TOKEN"],
        billing: { route: "subscription", via: [] },
        workers: ["a"],
        windows: null,
      },
      {
        name: null,
        provider: "codex",
        home: null,
        env: [],
        billing: { route: "subscription", via: [] },
        workers: ["d"],
        windows: null,
      },
    ]);
    const text = renderAccounts(r);
    expect(text).toContain("api-key (ANTHROPIC_API_KEY)");
    expect(text).toContain("windows: unknown");
    expect(text.split("\n")[0]).toMatch(/^ACCOUNT\s+PROVIDER\s+BILLING\s+WORKERS\s+HOME$/);
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
