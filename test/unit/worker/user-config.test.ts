import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { parseUserConfig, userConfigPaths } from "../../../src/core/worker/user-config.ts";

/** $UMBEL_HOME/config.toml: the names of variables each provider's workers get, never values. */

describe("the user config file", () => {
  test("per provider, the names of variables every worker of it gets", () => {
    const text = `# umbel's config: names only
[claude]
env = ["CLAUDE_CODE_OAUTH_TOKEN"] # the long-lived token from \`claude setup-token\`

[gemini]
env = [
  "GOOGLE_CLOUD_PROJECT",
  'GOOGLE_CLOUD_LOCATION', # a trailing comma is fine
]
`;
    expect(parseUserConfig(text, "/h/config.toml")).toEqual({
      claude: { env: ["CLAUDE_CODE_OAUTH_TOKEN"] },
      gemini: { env: ["GOOGLE_CLOUD_PROJECT", "GOOGLE_CLOUD_LOCATION"] },
    });
    expect(parseUserConfig("", "/h/config.toml")).toEqual({});
  });

  test.each([
    ['[claude]\nenv = ["CLAUDE_CODE_OAUTH_TOKEN=sk-ant-oat01-abc"]\n', 2, "names only"],
    ['[claude]\nenv = ["1BAD"]\n', 2, "an environment variable name"],
    ['[cluade]\nenv = ["X"]\n', 1, "cluade"],
    ['[claude]\nvars = ["X"]\n', 2, "vars"],
    ['[claude]\nenv = "X"\n', 2, "list"],
    ["[claude]\nenv = [X]\n", 2, "quoted"],
    ['[claude]\nenv = ["X"\n', 3, "]"],
    ["[claude.env]\n", 1, "table"],
    ['env = ["X"]\n', 1, "[provider]"],
  ])("%j is refused at line %i (%s)", (text, line, words) => {
    let error: unknown;
    try {
      parseUserConfig(text, "/h/config.toml");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toStartWith(`/h/config.toml:${line}: `);
    expect((error as UsageError).message).toContain(words);
    expect((error as UsageError).data).toMatchObject({ file: "/h/config.toml", line });
    // A value someone put there by mistake is never repeated in the error.
    expect((error as UsageError).message).not.toContain("sk-ant");
  });

  test("a top-level provider: the default for every face when none is given", () => {
    const text =
      '# every worker is codex unless told otherwise\nprovider = "codex"\n\n[claude]\nenv = ["X"]\n';
    expect(parseUserConfig(text, "/h/config.toml")).toEqual({ provider: "codex", claude: { env: ["X"] } });
  });

  test.each([
    [
      'provider = "claud"\n',
      1,
      '"claud" is not one of claude, codex, gemini, opencode; did you mean claude?',
    ],
    [
      '\nprovider = ["codex"]\n',
      2,
      'provider is one of claude, codex, gemini, opencode, e.g. provider = "codex"',
    ],
    ['[claude]\nprovider = "codex"\n', 2, "provider goes at the top of the file, before any [table]"],
    ['model = "x"\n', 1, "the top level knows only `provider`"],
  ])("%j is refused at line %i (%s)", (text, line, words) => {
    expect(() => parseUserConfig(text, "/h/config.toml")).toThrow(`/h/config.toml:${line}: `);
    expect(() => parseUserConfig(text, "/h/config.toml")).toThrow(words);
  });

  test("the state root's file first, then the XDG config dir", () => {
    expect(userConfigPaths({ HOME: "/home/u" }, "/home/u/.umbel")).toEqual([
      "/home/u/.umbel/config.toml",
      "/home/u/.config/umbel/config.toml",
    ]);
    expect(userConfigPaths({ HOME: "/home/u", XDG_CONFIG_HOME: "/xdg" }, "/state")).toEqual([
      "/state/config.toml",
      "/xdg/umbel/config.toml",
    ]);
    expect(userConfigPaths({}, "/state")).toEqual(["/state/config.toml"]);
  });
});
