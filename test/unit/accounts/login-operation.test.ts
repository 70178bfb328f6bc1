import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { loginAccount } from "../../../src/operations/accounts/login.ts";
import { createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/** accounts login's operation on in-memory ports: the home is made, the sign-in runs on the terminal. */

const CONFIG = `[accounts.work]
provider = "claude"
home = "~/.claude-work"
`;

function world(): FakeWorld {
  const w = createFakeWorld({ env: { PATH: "/usr/bin:/bin", HOME: "/home/u" } });
  w.files.set("/state/config.toml", CONFIG);
  return w;
}

describe("loginAccount", () => {
  test("a missing home is made, then the CLI's sign-in runs on the terminal with its home variable", async () => {
    const w = world();
    const result = await loginAccount(w.deps, "work", ["--sso"]);
    expect(w.dirs.has("/home/u/.claude-work")).toBe(true);
    expect(w.onTerminal).toEqual([
      {
        argv: ["/usr/bin/claude", "auth", "login", "--sso"],
        env: { PATH: "/usr/bin:/bin", HOME: "/home/u", CLAUDE_CONFIG_DIR: "/home/u/.claude-work" },
      },
    ]);
    expect(result).toEqual({
      account: "work",
      provider: "claude",
      home: "/home/u/.claude-work",
      command: ["/usr/bin/claude", "auth", "login", "--sso"],
      exitCode: 0,
    });
  });

  test("a file where the home should be is a UsageError, and no CLI runs", async () => {
    const w = world();
    w.files.set("/home/u/.claude-work", "not a folder\n");
    let error: unknown;
    try {
      await loginAccount(w.deps, "work");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain("is not a directory");
    expect((error as UsageError).data).toEqual({ account: "work", home: "/home/u/.claude-work" });
    expect(w.onTerminal).toEqual([]);
  });
});
