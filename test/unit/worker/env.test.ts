import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { claude } from "../../../src/core/providers/claude/provider.ts";
import { buildWorkerEnv, parseEnvFlags, renderEnvScript } from "../../../src/core/worker/env.ts";

const host = {
  PATH: "/usr/bin",
  HOME: "/home/u",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  XDG_CONFIG_HOME: "/home/u/.config",
  CLAUDECODE: "1",
  CLAUDE_CODE_CHILD_SESSION: "1",
  CLAUDE_CODE_ENTRYPOINT: "cli",
  ANTHROPIC_API_KEY: "sk-host",
  ANTHROPIC_BASE_URL: "http://127.0.0.1:1",
  CLAUDE_CONFIG_DIR: "/cfg",
  AWS_SECRET_ACCESS_KEY: "aws",
  MY_TOKEN: "secret-token",
  TMUX: "/tmp/tmux-0/default,1,0",
};

function build(explicit?: Parameters<typeof buildWorkerEnv>[0]["explicit"]) {
  return buildWorkerEnv({
    host,
    provider: claude,
    providerEnv: { DISABLE_AUTOUPDATER: "1" },
    explicit,
    umbel: { UMBEL_SESSION: "w" },
  });
}

describe("worker env", () => {
  test("inherits the allowlist, LC_/XDG_ and claude's names, nothing else", () => {
    expect(build()).toEqual({
      PATH: "/usr/bin",
      HOME: "/home/u",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      XDG_CONFIG_HOME: "/home/u/.config",
      ANTHROPIC_BASE_URL: "http://127.0.0.1:1",
      CLAUDE_CONFIG_DIR: "/cfg",
      DISABLE_AUTOUPDATER: "1",
      UMBEL_SESSION: "w",
    });
  });
  test.each([
    "CLAUDECODE",
    "CLAUDE_CODE_CHILD_SESSION",
    "CLAUDE_CODE_ENTRYPOINT",
    "ANTHROPIC_API_KEY",
    "TMUX",
    "MY_TOKEN",
  ])("never inherits %s implicitly", (name) => {
    expect(build()[name]).toBeUndefined();
  });
  test("ANTHROPIC_API_KEY reaches the worker only when passed explicitly", () => {
    expect(build({ ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_API_KEY" } }).ANTHROPIC_API_KEY).toBe("sk-host");
  });
  test("--env K=V and --env NAME (copied by name)", () => {
    const env = build(parseEnvFlags(["MODE=fast", "MY_TOKEN", "EMPTY="]));
    expect(env.MODE).toBe("fast");
    expect(env.MY_TOKEN).toBe("secret-token");
    expect(env.EMPTY).toBe("");
  });
  test("a name missing from umbel's env is a usage error", () => {
    expect(() => build({ NOPE: { fromEnv: "NOPE" } })).toThrow(UsageError);
  });
  test("umbel's own variables win", () => {
    expect(build({ UMBEL_SESSION: "other" }).UMBEL_SESSION).toBe("w");
  });
  test.each(["=x", "1A=b", "A-B=c", ""])("rejects --env %p", (flag) => {
    expect(() => parseEnvFlags([flag])).toThrow(UsageError);
  });
  test("the env script survives quotes, newlines and dollars", async () => {
    const env = { A: 'it\'s $HOME `x` "q"\nline2', B: "" };
    const script = renderEnvScript(env);
    const proc = Bun.spawnSync(["sh", "-c", `${script}\nprintf '%s|%s' "$A" "$B"`]);
    expect(proc.stdout.toString()).toBe(`${env.A}|`);
  });
});
