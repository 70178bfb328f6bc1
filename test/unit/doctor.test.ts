import { describe, expect, test } from "bun:test";
import { diagnose } from "../../src/core/doctor/diagnose.ts";
import type { CliFacts, DoctorFacts } from "../../src/core/doctor/facts.ts";
import type { DoctorCheck } from "../../src/core/doctor/schema.ts";
import { getProvider } from "../../src/core/providers/registry.ts";
import type { StatusResult } from "../../src/core/worker-status.ts";

/** doctor's judgement is pure: facts in (gathered by operations/doctor.ts), one line per check out. */

const NOW = Date.parse("2025-03-01T12:00:00Z");
/** test/unit/structure.test.ts reads a quoted tmux followed by a comma as an invocation. */
const TMUX = "tmux";

function cli(id: "claude" | "codex" | "gemini", over: Partial<CliFacts> = {}): CliFacts {
  const versions = { claude: "2.1.332 (Claude Code)", codex: "codex-cli 0.171.0", gemini: "0.61.0" };
  return {
    provider: getProvider(id),
    override: null,
    wanted: id,
    path: `/usr/bin/${id}`,
    version: { ok: true, output: `${versions[id]}\n` },
    clues: { files: [`/home/u/.${id}/creds`], account: false },
    ...over,
  };
}

function facts(over: Partial<DoctorFacts> = {}): DoctorFacts {
  return {
    platform: "linux",
    uid: 1000,
    env: { HOME: "/home/u", PATH: "/usr/bin" },
    tmux: { path: "/usr/bin/tmux", version: "tmux 3.3a" },
    clis: [cli("claude"), cli("codex"), cli("gemini")],
    config: { file: null, home: "/home/u/.umbel/config.toml", shadowed: [], config: {} },
    state: { root: "/home/u/.umbel", stat: { mode: 0o700, uid: 1000, isDirectory: true }, freeBytes: 50e9 },
    workers: { list: [], error: null },
    now: NOW,
    ...over,
  };
}

const check = (checks: DoctorCheck[], id: string) => checks.find((c) => c.id === id);

describe("a healthy machine", () => {
  test("every check ok, in a fixed order", () => {
    const checks = diagnose(facts());
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      [TMUX, "ok"],
      ["claude", "ok"],
      ["claude-sign-in", "ok"],
      ["codex", "ok"],
      ["codex-sign-in", "ok"],
      ["gemini", "ok"],
      ["gemini-sign-in", "ok"],
      ["billing", "ok"],
      ["config", "ok"],
      ["state", "ok"],
      ["workers", "ok"],
    ]);
    expect(check(checks, "claude")?.message).toBe(
      "/usr/bin/claude 2.1.332, the version umbel is tested with",
    );
    expect(check(checks, "tmux")?.message).toBe("/usr/bin/tmux 3.3a (umbel needs 3.3 or newer)");
  });
});

describe("the tmux check", () => {
  test.each([
    [{ path: null, version: null }, "fail", "not found on PATH", "install tmux 3.3 or newer"],
    [
      { path: "/usr/bin/tmux", version: "tmux 3.2a" },
      "fail",
      "3.2a is older than 3.3",
      "install tmux 3.3 or newer",
    ],
    [{ path: "/usr/bin/tmux", version: "tmux next-3.6" }, "ok", "3.6", undefined],
    [{ path: "/usr/bin/tmux", version: "tmux master" }, "warn", "could not read", "what tmux -V prints"],
  ] as const)("%j → %s", (tmux, status, message, fix) => {
    const c = check(diagnose(facts({ tmux })), "tmux");
    expect(c?.status).toBe(status);
    expect(c?.message).toContain(message);
    if (fix) expect(c?.fix).toContain(fix);
    else expect(c?.fix).toBeUndefined();
  });
});

describe("each provider's CLI", () => {
  test("newer than tested: warn, naming the tested version and how to install it", () => {
    const c = check(
      diagnose(facts({ clis: [cli("codex", { version: { ok: true, output: "codex-cli 0.172.3" } })] })),
      "codex",
    );
    expect(c).toEqual({
      id: "codex",
      status: "warn",
      message: "/usr/bin/codex 0.172.3 is newer than 0.171.0, the version umbel is tested with",
      fix: "if a codex worker misbehaves, install the tested one: npm install -g @openai/codex@0.171.0",
    });
  });

  test("older than tested: warn too", () => {
    const c = check(
      diagnose(facts({ clis: [cli("gemini", { version: { ok: true, output: "0.59.1" } })] })),
      "gemini",
    );
    expect(c?.status).toBe("warn");
    expect(c?.message).toContain("0.59.1 is older than 0.61.0");
  });

  test("not installed: warn (only that provider needs it); none at all: fail", () => {
    const missing = cli("codex", { path: null, version: null });
    expect(check(diagnose(facts({ clis: [cli("claude"), missing] })), "codex")).toEqual({
      id: "codex",
      status: "warn",
      message: "codex not found on PATH (only --provider codex needs it)",
      fix: "npm install -g @openai/codex@0.171.0, or set UMBEL_CODEX_BIN to its path",
    });
    const none = diagnose(facts({ clis: [cli("claude", { path: null, version: null })] }));
    expect(check(none, "claude")?.status).toBe("fail");
    expect(check(none, "claude")?.message).toContain("no agent CLI");
    expect(check(none, "claude-sign-in")).toBeUndefined();
  });

  test("UMBEL_<P>_BIN set to something that is not there: fail", () => {
    const c = check(
      diagnose(
        facts({
          clis: [
            cli("claude"),
            cli("gemini", { override: "/opt/gemini", wanted: "/opt/gemini", path: null, version: null }),
          ],
        }),
      ),
      "gemini",
    );
    expect(c).toMatchObject({ status: "fail", message: "UMBEL_GEMINI_BIN=/opt/gemini is not an executable" });
    expect(c?.fix).toContain("unset UMBEL_GEMINI_BIN");
  });

  test("a CLI whose --version fails: warn with its first line", () => {
    const c = check(
      diagnose(facts({ clis: [cli("claude", { version: { ok: false, output: "Error: boom\nat x" } })] })),
      "claude",
    );
    expect(c).toMatchObject({ status: "warn", message: "/usr/bin/claude --version failed: Error: boom" });
  });
});

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

describe("the versions umbel is tested with", () => {
  test("are the ones the real tier installs (one source: src/core/tested-versions.ts)", async () => {
    const { REAL_CLAUDE_VERSION } = await import("../../scripts/setup-real.ts");
    const { REAL_CODEX_VERSION } = await import("../../scripts/setup-real-codex.ts");
    const { REAL_GEMINI_VERSION } = await import("../../scripts/setup-real-gemini.ts");
    const { TESTED_CLIS } = await import("../../src/core/tested-versions.ts");
    expect({ claude: REAL_CLAUDE_VERSION, codex: REAL_CODEX_VERSION, gemini: REAL_GEMINI_VERSION }).toEqual({
      claude: TESTED_CLIS.claude.version,
      codex: TESTED_CLIS.codex.version,
      gemini: TESTED_CLIS.gemini.version,
    });
  });

  test("every provider has one, so doctor can compare", async () => {
    const { listProviders } = await import("../../src/core/providers/registry.ts");
    const { testedCli } = await import("../../src/core/tested-versions.ts");
    expect(
      listProviders()
        .filter((p) => testedCli(p.id) === undefined)
        .map((p) => p.id),
    ).toEqual([]);
  });
});
