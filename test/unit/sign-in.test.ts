import { describe, expect, test } from "bun:test";
import { getProvider } from "../../src/core/providers/registry.ts";
import { startReady, stepReady } from "../../src/core/ready.ts";
import { signInAdvice } from "../../src/core/sign-in.ts";

/**
 * A subscriber on a server signs in with CLAUDE_CODE_OAUTH_TOKEN. A worker never inherits it (it is
 * a secret), so the refusal must say how to pass it: the variable, the flag, and the config file.
 */

const claude = getProvider("claude");

describe("signInAdvice", () => {
  test("the token is set but was not passed: name it, the flag, and the config file", () => {
    expect(
      signInAdvice({
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
    expect(signInAdvice({ provider: claude, hostEnv: {}, passed: [], configFile: "/s/config.toml" })).toBe(
      "run claude once by hand to log in, or set CLAUDE_CODE_OAUTH_TOKEN (claude setup-token) and pass it with --env CLAUDE_CODE_OAUTH_TOKEN, or list it once in /s/config.toml under [claude] env",
    );
  });

  test("the token was passed and still refused: it is the token", () => {
    expect(
      signInAdvice({
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
    expect(signInAdvice({ provider: getProvider("codex"), hostEnv: {}, passed: [], configFile: "/c" })).toBe(
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
      message: `Claude Code is not signed in: ${advice}`,
      data: { name: "w", env: "CLAUDE_CODE_OAUTH_TOKEN", flag: "--env CLAUDE_CODE_OAUTH_TOKEN" },
    },
  });
});
