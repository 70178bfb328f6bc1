import { describe, expect, test } from "bun:test";
import { getProvider } from "../../../src/core/providers/registry.ts";
import { startReady, stepReady } from "../../../src/core/spawn/ready.ts";
import { signInAdvice } from "../../../src/core/worker/sign-in.ts";

/**
 * A subscriber on a server signs in with CLAUDE_CODE_OAUTH_TOKEN. A worker never inherits it (it is
 * a secret), so the refusal must say how to pass it: the variable, the flag, and the config file.
 */

const claude = getProvider("claude");

const text = (c: Parameters<typeof signInAdvice>[0]) => signInAdvice(c).text;

describe("signInAdvice", () => {
  test("the token is set but was not passed: name it, the flag, and the config file", () => {
    expect(
      text({
        provider: claude,
        hostEnv: { CLAUDE_CODE_OAUTH_TOKEN: "x" },
        passed: [],
        configFile: "/s/config.toml",
      }),
    ).toBe(
      "CLAUDE_CODE_OAUTH_TOKEN is set, but a worker never inherits a secret: pass it with --env CLAUDE_CODE_OAUTH_TOKEN, or list it once in /s/config.toml under [claude] env",
    );
  });

  test("no token: sign in by hand, or pass a long-lived token by name", () => {
    expect(text({ provider: claude, hostEnv: {}, passed: [], configFile: "/s/config.toml" })).toBe(
      "run claude once by hand to log in, or set CLAUDE_CODE_OAUTH_TOKEN (claude setup-token) and pass it with --env CLAUDE_CODE_OAUTH_TOKEN, or list it once in /s/config.toml under [claude] env",
    );
  });

  test("the token was passed and still refused: it is the token", () => {
    expect(
      text({
        provider: claude,
        hostEnv: { CLAUDE_CODE_OAUTH_TOKEN: "x" },
        passed: ["CLAUDE_CODE_OAUTH_TOKEN"],
        configFile: "/s/config.toml",
      }),
    ).toBe(
      "CLAUDE_CODE_OAUTH_TOKEN was passed and claude still asks to log in: it may be expired or revoked (claude setup-token makes a new one)",
    );
  });

  test("a provider without a token variable: sign in by hand", () => {
    expect(text({ provider: getProvider("codex"), hostEnv: {}, passed: [], configFile: "/c" })).toBe(
      "run codex once by hand to log in",
    );
  });
});

test("spawn's refusal carries the advice, the variable and the flag", () => {
  const advice = signInAdvice({
    provider: claude,
    hostEnv: { CLAUDE_CODE_OAUTH_TOKEN: "x" },
    passed: [],
    configFile: "/c",
  });
  const state = startReady({
    provider: claude,
    name: "w",
    deadline: 10_000,
    timeoutMs: 10_000,
    untrusted: null,
    signInAdvice: advice,
  });
  const step = stepReady(state, {
    kind: "screen",
    screen: " Select login method:\n ❯ 1. Claude account",
    now: 1,
    aborted: false,
  });
  expect(step.next).toMatchObject({
    kind: "fail",
    error: {
      code: "input",
      exitCode: 126,
      message: `Claude Code is not signed in: ${advice.text}`,
      data: { name: "w", env: "CLAUDE_CODE_OAUTH_TOKEN", flag: "--env CLAUDE_CODE_OAUTH_TOKEN" },
    },
  });
});

describe("a key umbel withheld on purpose", () => {
  test("claude: named, why, and how to pass it (the flag or the config file); never its value", () => {
    const advice = signInAdvice({
      provider: claude,
      hostEnv: { ANTHROPIC_API_KEY: "sk-ant-api03-secret" },
      passed: [],
      configFile: "/s/config.toml",
    });
    expect(advice.withheld).toEqual(["ANTHROPIC_API_KEY"]);
    expect(advice.text).toBe(
      "ANTHROPIC_API_KEY is set, but umbel withheld it on purpose (an inherited key would bill the API instead of your subscription): to sign in with it, pass --env ANTHROPIC_API_KEY, or list it once in /s/config.toml under [claude] env; or run claude once by hand to log in, or set CLAUDE_CODE_OAUTH_TOKEN (claude setup-token) and pass it with --env CLAUDE_CODE_OAUTH_TOKEN, or list it once in /s/config.toml under [claude] env",
    );
    expect(advice.text).not.toContain("sk-ant");
  });

  test("claude: both of its keys, one flag each", () => {
    const advice = signInAdvice({
      provider: claude,
      hostEnv: { ANTHROPIC_API_KEY: "a", ANTHROPIC_AUTH_TOKEN: "b" },
      passed: [],
      configFile: "/c",
    });
    expect(advice.withheld).toEqual(["ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN"]);
    expect(advice.text).toStartWith(
      "ANTHROPIC_API_KEY and ANTHROPIC_AUTH_TOKEN are set, but umbel withheld them on purpose (an inherited key would bill the API instead of your subscription): to sign in with one, pass --env ANTHROPIC_API_KEY or --env ANTHROPIC_AUTH_TOKEN, or list it once in /c under [claude] env; ",
    );
  });

  test("a key that was passed is not withheld", () => {
    const advice = signInAdvice({
      provider: claude,
      hostEnv: { ANTHROPIC_API_KEY: "a" },
      passed: ["ANTHROPIC_API_KEY"],
      configFile: "/c",
    });
    expect(advice.withheld).toEqual([]);
    expect(advice.text).not.toContain("withheld");
  });

  test("codex: the key alone does not sign it in (0.171.0 measured): the login command that stores it", () => {
    const advice = signInAdvice({
      provider: getProvider("codex"),
      hostEnv: { OPENAI_API_KEY: "sk-proj-secret" },
      passed: [],
      configFile: "/c",
    });
    expect(advice.withheld).toEqual(["OPENAI_API_KEY"]);
    expect(advice.text).toBe(
      'OPENAI_API_KEY is set, but umbel withheld it on purpose (an inherited key would bill the API instead of your subscription), and codex does not sign in from the variable alone: to sign in with it, run printf %s "$OPENAI_API_KEY" | codex login --with-api-key once; or run codex once by hand to log in',
    );
  });

  test("spawn's refusal carries the names it withheld in its data", () => {
    const advice = signInAdvice({
      provider: claude,
      hostEnv: { ANTHROPIC_API_KEY: "a" },
      passed: [],
      configFile: "/c",
    });
    const state = startReady({
      provider: claude,
      name: "w",
      deadline: 10_000,
      timeoutMs: 10_000,
      untrusted: null,
      signInAdvice: advice,
    });
    const step = stepReady(state, {
      kind: "screen",
      screen: " Select login method:\n ❯ 1. Claude account",
      now: 1,
      aborted: false,
    });
    expect(step.next).toMatchObject({
      kind: "fail",
      error: { code: "input", data: { withheld: ["ANTHROPIC_API_KEY"] } },
    });
    expect(JSON.stringify(step.next)).not.toContain('"a"');
  });
});
