import { describe, expect, test } from "bun:test";
import { spawnWorker } from "../../../src/operations/spawn/spawn.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/** spawn reads the user config file: the names it lists reach every worker of that provider. */

const START = { hook_event_name: "SessionStart", session_id: "S", transcript_path: "/t/s.jsonl" };
const SIGN_IN = " Select login method:\n ❯ 1. Claude account with subscription";

function world(env: Record<string, string>, screen = IDLE): FakeWorld {
  const w = createFakeWorld({ env: { PATH: "/usr/bin:/bin", HOME: "/home/u", ...env } });
  w.tmux.onNewSession = ({ name }) => {
    const pane = w.tmux.panes.get(name);
    if (pane) pane.screen = screen;
    if (screen === IDLE) w.hook(name, START);
  };
  return w;
}

const envScript = (w: FakeWorld) => w.tmux.started[0]?.bufferContent ?? "";

describe("spawn and the user config file", () => {
  test("a name under [claude] env is passed to a claude worker when umbel's environment has it", async () => {
    const w = world({ CLAUDE_CODE_OAUTH_TOKEN: "tok-123", OTHER: "x" });
    w.files.set("/state/config.toml", '[claude]\nenv = ["CLAUDE_CODE_OAUTH_TOKEN", "NOT_SET"]\n');
    await spawnWorker(w.deps, { name: "w1", provider: "claude" });
    expect(envScript(w)).toContain("export CLAUDE_CODE_OAUTH_TOKEN='tok-123'\n");
    expect(envScript(w)).not.toContain("NOT_SET");
    expect(envScript(w)).not.toContain("OTHER");
    expect(w.sessions.get("w1")?.meta?.envNames).toEqual(["CLAUDE_CODE_OAUTH_TOKEN"]);
  });

  test("the XDG config dir when the state root has none; --env still wins", async () => {
    const w = world({ CLAUDE_CODE_OAUTH_TOKEN: "tok-123", XDG_CONFIG_HOME: "/xdg" });
    w.files.set("/xdg/umbel/config.toml", '[claude]\nenv = ["CLAUDE_CODE_OAUTH_TOKEN"]\n');
    await spawnWorker(w.deps, { name: "w1", provider: "claude", env: { CLAUDE_CODE_OAUTH_TOKEN: "given" } });
    expect(envScript(w)).toContain("export CLAUDE_CODE_OAUTH_TOKEN='given'\n");
  });

  test("another provider's names are not passed", async () => {
    const w = world({ GOOGLE_CLOUD_LOCATION: "eu" });
    w.files.set("/state/config.toml", '[gemini]\nenv = ["GOOGLE_CLOUD_LOCATION"]\n');
    await spawnWorker(w.deps, { name: "w1", provider: "claude" });
    expect(envScript(w)).not.toContain("GOOGLE_CLOUD_LOCATION");
  });

  test("a broken config file is a usage error before anything is made", async () => {
    const w = world({});
    w.files.set("/state/config.toml", '[claude]\nenv = ["A=b"]\n');
    await expect(spawnWorker(w.deps, { name: "w1", provider: "claude" })).rejects.toMatchObject({
      code: "usage",
      message: expect.stringContaining("/state/config.toml:2: names only"),
    });
    expect(w.sessions.size).toBe(0);
    expect(w.tmux.calls).toEqual([]);
  });

  test("a sign-in screen with the token set but not passed: the refusal names it and the way through", async () => {
    const w = world({ CLAUDE_CODE_OAUTH_TOKEN: "tok-123" }, SIGN_IN);
    await expect(spawnWorker(w.deps, { name: "w1", provider: "claude" })).rejects.toMatchObject({
      code: "input",
      exitCode: 126,
      message:
        "Claude Code is not signed in: CLAUDE_CODE_OAUTH_TOKEN is set, but a worker never inherits a secret: pass it with --env CLAUDE_CODE_OAUTH_TOKEN, or list it once in /state/config.toml under [claude] env",
      data: { env: "CLAUDE_CODE_OAUTH_TOKEN", flag: "--env CLAUDE_CODE_OAUTH_TOKEN" },
    });
    expect(w.sessions.has("w1")).toBe(false);
  });
});
