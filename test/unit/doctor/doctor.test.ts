import { describe, expect, test } from "bun:test";
import { diagnose } from "../../../src/core/doctor/diagnose.ts";
import { check, cli, facts, TMUX } from "../../helpers/doctor-facts.ts";

/** doctor's judgement is pure: facts in (gathered by operations/doctor/doctor.ts), one line per check out. */

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
      ["locks", "ok"],
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

  test.each([
    ["linux", "install tmux 3.3 or newer: apt-get install tmux (Debian, Ubuntu; dnf or apk elsewhere)"],
    ["darwin", "install tmux 3.3 or newer: brew install tmux"],
  ])("the fix is this platform's (%s), the same the verbs' errors give", (platform, fix) => {
    const c = check(diagnose(facts({ platform, tmux: { path: null, version: null } })), "tmux");
    expect(c?.fix).toBe(fix);
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

describe("the versions umbel is tested with", () => {
  test("are the ones the real tier installs (one source: src/core/doctor/tested-versions.ts)", async () => {
    const { REAL_CLAUDE_VERSION } = await import("../../../scripts/setup-real.ts");
    const { REAL_CODEX_VERSION } = await import("../../../scripts/setup-real-codex.ts");
    const { REAL_GEMINI_VERSION } = await import("../../../scripts/setup-real-gemini.ts");
    const { TESTED_CLIS } = await import("../../../src/core/doctor/tested-versions.ts");
    expect({ claude: REAL_CLAUDE_VERSION, codex: REAL_CODEX_VERSION, gemini: REAL_GEMINI_VERSION }).toEqual({
      claude: TESTED_CLIS.claude.version,
      codex: TESTED_CLIS.codex.version,
      gemini: TESTED_CLIS.gemini.version,
    });
  });

  test("every provider has one, so doctor can compare", async () => {
    const { listProviders } = await import("../../../src/core/providers/registry.ts");
    const { testedCli } = await import("../../../src/core/doctor/tested-versions.ts");
    expect(
      listProviders()
        .filter((p) => testedCli(p.id) === undefined)
        .map((p) => p.id),
    ).toEqual([]);
  });
});
