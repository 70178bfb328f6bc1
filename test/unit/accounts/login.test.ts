import { describe, expect, test } from "bun:test";
import { planLogin } from "../../../src/core/accounts/login.ts";
import { UsageError } from "../../../src/core/errors.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";
import type { UserConfig } from "../../../src/core/worker/user-config.ts";

const config: UserConfig = {
  accounts: {
    work: { provider: "claude", home: "~/.claude-work", env: { CLAUDE_CODE_OAUTH_TOKEN: "WORK_TOKEN" } },
    "home-codex": { provider: "codex", home: "~/.codex-home/" },
    gem: { provider: "gemini", home: "/srv/gem" },
    oc: { provider: "opencode", home: "~/oc" },
    tokens: { provider: "claude", env: { CLAUDE_CODE_OAUTH_TOKEN: "OTHER" } },
  },
};
/** umbel's own environment: the default sign-in's homes and keys, which a login must not keep. */
const host = {
  HOME: "/home/u",
  PATH: "/usr/bin",
  TERM: "xterm-256color",
  WORK_TOKEN: "sk-ant-oat01-canary",
  CLAUDE_CONFIG_DIR: "/home/u/.claude",
  CLAUDE_CODE_OAUTH_TOKEN: "sk-ant-oat01-default",
  ANTHROPIC_API_KEY: "sk-ant-api-default",
  CODEX_HOME: "/home/u/.codex",
  OPENAI_API_KEY: "sk-default",
  OPENCODE_AUTH_CONTENT: "{}",
  XDG_DATA_HOME: "/home/u/.local/share",
};

describe("umbel accounts login NAME: the CLI's own sign-in in the account's home", () => {
  test.each([
    ["work", "claude", ["auth", "login"], { CLAUDE_CONFIG_DIR: "/home/u/.claude-work" }],
    // The account's own home, never umbel's managed codex-home-<account> (that one links its auth.json).
    ["home-codex", "codex", ["login"], { CODEX_HOME: "/home/u/.codex-home" }],
    // gemini has no login command: its auth dialog opens on the first start in a home with no sign-in.
    ["gem", "gemini", [], { GEMINI_CLI_HOME: "/srv/gem" }],
    ["oc", "opencode", ["auth", "login"], { XDG_DATA_HOME: "/home/u/oc" }],
  ] as const)("%s (%s): %j with its home variable", (name, provider, args, homeVar) => {
    const plan = planLogin(config, name, getProvider, host);
    expect(plan).toMatchObject({ account: name, provider, args: [...args] });
    expect(plan.home).toBe(Object.values(homeVar)[0] ?? "");
    expect(plan.env).toMatchObject({ ...homeVar, PATH: "/usr/bin", TERM: "xterm-256color", HOME: "/home/u" });
  });

  test.each([
    ["work", ["CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_API_KEY"]],
    ["home-codex", ["OPENAI_API_KEY"]],
    ["oc", ["OPENCODE_AUTH_CONTENT", "ANTHROPIC_API_KEY", "OPENAI_API_KEY"]],
  ] as const)(
    "%s: a token or key that would sign the CLI in by itself never reaches its sign-in (%j)",
    (name, keys) => {
      const { env } = planLogin(config, name, getProvider, host);
      for (const key of keys) expect({ key, value: env[key] }).toEqual({ key, value: undefined });
      // The account's own mapping is a worker's, not the sign-in's: $WORK_TOKEN stays only itself.
      expect(Object.entries(env).filter(([k, v]) => v.includes("canary") && k !== "WORK_TOKEN")).toEqual([]);
    },
  );

  test.each([
    [undefined, "needs an account name", { known: Object.keys(config.accounts ?? {}) }],
    ["auto", "placement keyword", {}],
    ["wrok", "did you mean work?", { account: "wrok" }],
    ["tokens", "has no home", { account: "tokens" }],
  ] as const)("%s is a UsageError (%s)", (name, words, data) => {
    let error: unknown;
    try {
      planLogin(config, name, getProvider, host);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).exitCode).toBe(2);
    expect((error as UsageError).message).toContain(words);
    expect((error as UsageError).data).toMatchObject(data);
  });

  test("the CLI's own flags after `--` follow its sign-in command (codex login --device-auth)", () => {
    expect(planLogin(config, "home-codex", getProvider, host, ["--device-auth"]).args).toEqual([
      "login",
      "--device-auth",
    ]);
    expect(planLogin(config, "gem", getProvider, host, ["-m", "x"]).args).toEqual(["-m", "x"]);
  });

  test("no account declared: the message says so", () => {
    expect(() => planLogin({}, "work", getProvider, host)).toThrow("none is declared in config.toml");
  });
});
