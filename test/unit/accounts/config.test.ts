import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { parseUserConfig } from "../../../src/core/worker/user-config.ts";

/** [accounts.NAME] tables: a provider, a home, and variables passed by name (never values). */

describe("accounts in the config file", () => {
  test("the issue's example: provider, home, env as an inline table of names", () => {
    const text = `provider = "claude"

[accounts.work]
provider = "claude"
home = "~/.claude-work"                                   # claude: CLAUDE_CONFIG_DIR
env = { CLAUDE_CODE_OAUTH_TOKEN = "WORK_CLAUDE_TOKEN" }   # from $WORK_CLAUDE_TOKEN

[accounts.home-codex]
provider = "codex"
home = "~/.codex-home"

[claude]
env = ["ANTHROPIC_BASE_URL"]
`;
    expect(parseUserConfig(text, "/h/config.toml")).toEqual({
      provider: "claude",
      accounts: {
        work: {
          provider: "claude",
          home: "~/.claude-work",
          env: { CLAUDE_CODE_OAUTH_TOKEN: "WORK_CLAUDE_TOKEN" },
        },
        "home-codex": { provider: "codex", home: "~/.codex-home" },
      },
      claude: { env: ["ANTHROPIC_BASE_URL"] },
    });
  });

  test("an empty inline table and a trailing comma are fine", () => {
    const text =
      '[accounts.a]\nprovider = "gemini"\nenv = { A = "B", C = "D", }\n[accounts.b]\nprovider = "codex"\nenv = {}\n';
    expect(parseUserConfig(text, "/h/c.toml").accounts).toEqual({
      a: { provider: "gemini", env: { A: "B", C: "D" } },
      b: { provider: "codex", env: {} },
    });
  });

  test.each([
    ['[accounts.work]\nhome = "~/.w"\n', 1, "provider"],
    ['[accounts.work]\nprovider = "cluade"\n', 2, "claude"],
    ['[accounts.work]\nprovider = "claude"\nhomedir = "~/.w"\n', 3, "homedir"],
    ['[accounts.work]\nprovider = "claude"\nenv = { T = "sk-ant-oat01-secret" }\n', 3, "names only"],
    ['[accounts.work]\nprovider = "claude"\nenv = { 1T = "S" }\n', 3, "an environment variable name"],
    ['[accounts.work]\nprovider = "claude"\nenv = ["T"]\n', 3, "inline table"],
    ['[accounts.work]\nprovider = "claude"\nenv = { T = "S"\n', 4, "}"],
    ['[accounts.Work]\nprovider = "claude"\n', 1, "account name"],
    ['[accounts.auto]\nprovider = "claude"\n', 1, "auto"],
    ['[accounts]\nprovider = "claude"\n', 1, "[accounts.NAME]"],
    ['[accounts.a.b]\nprovider = "claude"\n', 1, "[accounts.NAME]"],
    ['[claude.work]\nprovider = "claude"\n', 1, "table"],
  ])("%j is refused at line %i (%s)", (text, line, words) => {
    let error: unknown;
    try {
      parseUserConfig(text, "/h/config.toml");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    const e = error as UsageError;
    expect(e.message).toStartWith(`/h/config.toml:${line}: `);
    expect(e.message).toContain(words);
    expect(e.message).not.toContain("sk-ant-oat01-secret");
    expect(e.exitCode).toBe(2);
  });
});
