import { describe, expect, test } from "bun:test";
import { resolveAccount as resolveWith } from "../../../src/core/accounts/launch.ts";
import { UsageError } from "../../../src/core/errors.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";
import type { ProviderId } from "../../../src/core/schemas.ts";
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
const resolveAccount = (
  c: UserConfig,
  name: string | undefined,
  id: ProviderId,
  env: Record<string, string>,
) => resolveWith(c, name, getProvider(id), env);
const host = { HOME: "/home/u", WORK_TOKEN: "sk-ant-oat01-canary", OTHER: "x" };

describe("an account for one worker", () => {
  test("none named: the provider's default, nothing changes", () => {
    expect(resolveAccount(config, undefined, "claude", host)).toBeNull();
    expect(resolveAccount({}, undefined, "codex", host)).toBeNull();
  });

  test.each([
    [
      "work",
      "claude",
      { CLAUDE_CONFIG_DIR: "/home/u/.claude-work", CLAUDE_CODE_OAUTH_TOKEN: { fromEnv: "WORK_TOKEN" } },
      {},
    ],
    ["home-codex", "codex", {}, { CODEX_HOME: "/home/u/.codex-home" }],
    ["gem", "gemini", {}, { GEMINI_CLI_HOME: "/srv/gem" }],
    ["oc", "opencode", { XDG_DATA_HOME: "/home/u/oc" }, {}],
    ["tokens", "claude", { CLAUDE_CODE_OAUTH_TOKEN: { fromEnv: "OTHER" } }, {}],
  ] as const)("%s (%s): the worker's env and the home the planner reads", (name, provider, env, hostEnv) => {
    const account = resolveAccount(config, name, provider, host);
    expect(account?.env).toEqual(env);
    expect(account?.hostEnv).toEqual(hostEnv);
    // Names only: the value of a mapped variable is never in what an account resolves to.
    expect(JSON.stringify(account)).not.toContain("canary");
  });

  test.each([
    ["auto", "claude", host, "is placed by spawn", {}],
    ["wrok", "claude", host, "did you mean work?", { known: Object.keys(config.accounts ?? {}) }],
    ["home-codex", "claude", host, "is a codex account", { accountProvider: "codex" }],
    ["work", "claude", { HOME: "/home/u" }, "$WORK_TOKEN, which is not set", { fromEnv: "WORK_TOKEN" }],
    ["work", "claude", { WORK_TOKEN: "t" }, "HOME is not set", {}],
  ] as const)("%s with %s is a UsageError (%s)", (name, provider, env, words, data) => {
    let error: unknown;
    try {
      resolveAccount(config, name, provider, env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    const e = error as UsageError;
    expect(e.message).toContain(words);
    expect(e.exitCode).toBe(2);
    expect(e.data).toMatchObject(data);
  });

  test("a relative home is refused", () => {
    const relative: UserConfig = { accounts: { r: { provider: "claude", home: "claude-r" } } };
    expect(() => resolveAccount(relative, "r", "claude", host)).toThrow("absolute");
  });

  test("with no accounts declared the message says so", () => {
    expect(() => resolveAccount({}, "work", "claude", host)).toThrow("none is declared in config.toml");
  });
});
