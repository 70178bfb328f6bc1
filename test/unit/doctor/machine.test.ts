import { describe, expect, test } from "bun:test";
import { diagnose } from "../../../src/core/doctor/diagnose.ts";
import type { StatusResult } from "../../../src/core/worker/status.ts";
import { check, cli, facts } from "../../helpers/doctor-facts.ts";

/** doctor on sign-in, billing, the config file, the state root and workers: facts in, checks out. */

describe("sign-in, read without starting a TUI", () => {
  const none = { files: [], account: false };

  test("no credentials: warn with the ways to sign in", () => {
    const c = check(diagnose(facts({ clis: [cli("claude", { clues: none })] })), "claude-sign-in");
    expect(c?.status).toBe("warn");
    expect(c?.message).toBe("no sign-in found for claude");
    expect(c?.fix).toContain("--env CLAUDE_CODE_OAUTH_TOKEN");
  });

  test("the account key in .claude.json is enough (macOS keeps the token in the Keychain)", () => {
    const c = check(
      diagnose(facts({ clis: [cli("claude", { clues: { files: [], account: true } })] })),
      "claude-sign-in",
    );
    expect(c?.status).toBe("ok");
  });

  test("on macOS with no clue at all, say that the Keychain cannot be read", () => {
    const c = check(
      diagnose(facts({ platform: "darwin", clis: [cli("claude", { clues: none })] })),
      "claude-sign-in",
    );
    expect(c?.status).toBe("warn");
    expect(c?.message).toContain("Keychain");
  });

  test("CLAUDE_CODE_OAUTH_TOKEN set but passed to no worker: warn naming the variable and the flag", () => {
    const c = check(
      diagnose(
        facts({
          env: { HOME: "/home/u", CLAUDE_CODE_OAUTH_TOKEN: "t" },
          clis: [cli("claude", { clues: none })],
        }),
      ),
      "claude-sign-in",
    );
    expect(c).toEqual({
      id: "claude-sign-in",
      status: "warn",
      message: "CLAUDE_CODE_OAUTH_TOKEN is set, but a worker never inherits a secret",
      fix: "pass it with --env CLAUDE_CODE_OAUTH_TOKEN, or list it once in /home/u/.umbel/config.toml under [claude] env",
    });
  });

  test("... and listed in the config file: ok", () => {
    const c = check(
      diagnose(
        facts({
          env: { HOME: "/home/u", CLAUDE_CODE_OAUTH_TOKEN: "t" },
          clis: [cli("claude", { clues: none })],
          config: {
            file: "/c.toml",
            home: "/c.toml",
            shadowed: [],
            config: { claude: { env: ["CLAUDE_CODE_OAUTH_TOKEN"] } },
          },
        }),
      ),
      "claude-sign-in",
    );
    expect(c).toMatchObject({
      status: "ok",
      message: "CLAUDE_CODE_OAUTH_TOKEN is passed to every claude worker (/c.toml)",
    });
  });

  test("listed in the config file but not set (the container image run without it): warn to set it", () => {
    const c = check(
      diagnose(
        facts({
          env: { HOME: "/home/u" },
          clis: [cli("claude", { clues: none })],
          config: {
            file: "/c.toml",
            home: "/c.toml",
            shadowed: [],
            config: { claude: { env: ["CLAUDE_CODE_OAUTH_TOKEN"] } },
          },
        }),
      ),
      "claude-sign-in",
    );
    expect(c).toEqual({
      id: "claude-sign-in",
      status: "warn",
      message: "no sign-in found for claude",
      fix: "set CLAUDE_CODE_OAUTH_TOKEN where umbel runs (claude setup-token makes one): /c.toml passes it to every claude worker",
    });
  });

  test("a variable that signs the CLI in and that workers inherit (gemini's API key): ok", () => {
    const c = check(
      diagnose(facts({ env: { HOME: "/h", GEMINI_API_KEY: "k" }, clis: [cli("gemini", { clues: none })] })),
      "gemini-sign-in",
    );
    expect(c).toMatchObject({ status: "ok", message: "GEMINI_API_KEY is set (gemini workers inherit it)" });
  });
});

describe("billing routes", () => {
  test("an API key umbel will not pass: warn, saying why and how to pass it on purpose", () => {
    const checks = diagnose(facts({ env: { HOME: "/h", ANTHROPIC_API_KEY: "sk" } })).filter(
      (c) => c.id === "billing",
    );
    expect(checks).toEqual([
      {
        id: "billing",
        status: "warn",
        message:
          "ANTHROPIC_API_KEY is set; umbel does not pass it to claude workers, because it would bill the API instead of your subscription",
        fix: "nothing, to stay on the subscription; --env ANTHROPIC_API_KEY bills the API on purpose",
      },
    ]);
  });

  test("the config file passing one to every worker: warn", () => {
    const c = check(
      diagnose(
        facts({
          env: { HOME: "/h", ANTHROPIC_API_KEY: "sk" },
          config: {
            file: "/c.toml",
            home: "/c.toml",
            shadowed: [],
            config: { claude: { env: ["ANTHROPIC_API_KEY"] } },
          },
        }),
      ),
      "billing",
    );
    expect(c?.message).toContain(
      "/c.toml passes ANTHROPIC_API_KEY to every claude worker: they bill the API",
    );
  });
});

describe("the config file", () => {
  test("broken: fail with its message", () => {
    const c = check(
      diagnose(facts({ config: { error: "/c.toml:2: names only", file: "/c.toml" } })),
      "config",
    );
    expect(c).toMatchObject({ status: "fail", message: "/c.toml:2: names only" });
  });

  test("a listed name that is not set, and a second file that is not read: warn", () => {
    const c = check(
      diagnose(
        facts({
          config: {
            file: "/a.toml",
            home: "/a.toml",
            shadowed: ["/b.toml"],
            config: { codex: { env: ["NOPE"] } },
          },
        }),
      ),
      "config",
    );
    expect(c?.status).toBe("warn");
    expect(c?.message).toContain("NOPE (codex) is not set in umbel's environment");
    expect(c?.message).toContain("/b.toml is not read");
  });
});

describe("the default provider", () => {
  const withProvider = (env: Record<string, string>, provider?: "codex") =>
    check(
      diagnose(
        facts({
          env: { HOME: "/h", ...env },
          config: {
            file: "/c.toml",
            home: "/c.toml",
            shadowed: [],
            config: provider ? { provider } : {},
          },
        }),
      ),
      "config",
    );

  test("the file's provider is said, and UMBEL_PROVIDER over it", () => {
    expect(withProvider({}, "codex")).toMatchObject({
      status: "ok",
      message: "/c.toml: the default provider is codex (config.toml); lists nothing",
    });
    expect(withProvider({ UMBEL_PROVIDER: "gemini" }, "codex")?.message).toContain(
      "the default provider is gemini (UMBEL_PROVIDER)",
    );
    expect(withProvider({})?.message).toBe("/c.toml: lists nothing");
  });

  test("a bad UMBEL_PROVIDER fails, with the near miss, with a config file or without", () => {
    const noFile = check(diagnose(facts({ env: { HOME: "/h", UMBEL_PROVIDER: "codx" } })), "config");
    expect(noFile?.status).toBe("fail");
    expect(withProvider({ UMBEL_PROVIDER: "codx" })).toMatchObject({
      status: "fail",
      message: 'UMBEL_PROVIDER "codx" is not one of claude, codex, gemini, opencode; did you mean codex?',
      fix: "set UMBEL_PROVIDER to one of claude, codex, gemini, opencode, or unset it",
    });
  });
});

describe("the state root", () => {
  test.each([
    [{ mode: 0o755, uid: 1000, isDirectory: true }, 50e9, "fail", "mode 0755", "chmod 700 /home/u/.umbel"],
    [{ mode: 0o700, uid: 0, isDirectory: true }, 50e9, "fail", "owned by uid 0", "chown"],
    [{ mode: 0o700, uid: 1000, isDirectory: true }, 500e6, "warn", "500 MB free", "free"],
    [{ mode: 0o700, uid: 1000, isDirectory: true }, 50e6, "fail", "50 MB free", "free"],
    [null, 50e9, "ok", "made on first use", undefined],
  ] as const)("%j with %d bytes free → %s", (stat, freeBytes, status, message, fix) => {
    const c = check(diagnose(facts({ state: { root: "/home/u/.umbel", stat, freeBytes } })), "state");
    expect(c?.status).toBe(status);
    expect(c?.message).toContain(message);
    if (fix) expect(c?.fix).toContain(fix);
  });
});

describe("workers", () => {
  const worker = (
    name: string,
    state: StatusResult["state"],
    createdAt = "2025-03-01T11:59:00Z",
  ): StatusResult => ({
    name,
    provider: "claude",
    state,
    cwd: "/w",
    createdAt,
    sessionId: null,
    model: null,
    pid: null,
    exit: null,
    reason: null,
    prompt: null,
    events: 0,
    guard: null,
  });

  test("dead and killed ones: warn with the command that clears them", () => {
    const c = check(
      diagnose(
        facts({
          workers: { list: [worker("a", "dead"), worker("b", "killed"), worker("c", "idle")], error: null },
        }),
      ),
      "workers",
    );
    expect(c).toEqual({
      id: "workers",
      status: "warn",
      message: "1 live; 2 dead or killed (a, b)",
      fix: "umbel prune",
    });
  });

  test("one stuck starting for longer than a spawn can take: warn with its kill command", () => {
    const c = check(
      diagnose(facts({ workers: { list: [worker("s", "starting", "2025-03-01T11:30:00Z")], error: null } })),
      "workers",
    );
    expect(c?.message).toContain("s has been starting for 30m");
    expect(c?.fix).toBe("umbel kill s --purge");
  });

  test("could not be listed (tmux is broken): warn", () => {
    expect(
      check(diagnose(facts({ workers: { list: [], error: "tmux did not answer" } })), "workers"),
    ).toMatchObject({
      status: "warn",
      message: "could not list workers: tmux did not answer",
    });
  });
});
