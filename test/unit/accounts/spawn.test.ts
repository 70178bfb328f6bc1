import { describe, expect, test } from "bun:test";
import type { HomeContext } from "../../../src/core/providers/home-types.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";
import { spawnWorker } from "../../../src/operations/spawn/spawn.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/** spawn --account: the account's home and token variables reach the worker, checked before any I/O. */

const START = { hook_event_name: "SessionStart", session_id: "S", transcript_path: "/t/s.jsonl" };
const CONFIG = `[claude]
env = ["CLAUDE_CODE_OAUTH_TOKEN"]

[accounts.work]
provider = "claude"
home = "~/.claude-work"
env = { CLAUDE_CODE_OAUTH_TOKEN = "WORK_CLAUDE_TOKEN" }

[accounts.plain]
provider = "claude"
home = "/srv/claude-plain"

[accounts.home-codex]
provider = "codex"
home = "~/.codex-home"
`;

function world(env: Record<string, string> = {}): FakeWorld {
  const w = createFakeWorld({
    env: { PATH: "/usr/bin:/bin", HOME: "/home/u", CLAUDE_CODE_OAUTH_TOKEN: "default-tok", ...env },
  });
  w.files.set("/state/config.toml", CONFIG);
  w.tmux.onNewSession = ({ name }) => {
    const pane = w.tmux.panes.get(name);
    if (pane) pane.screen = IDLE;
    w.hook(name, START);
  };
  return w;
}

const envScript = (w: FakeWorld) => w.tmux.started[0]?.bufferContent ?? "";

describe("spawn --account", () => {
  test("claude: CLAUDE_CONFIG_DIR is the account's home, its token copied by name; meta and status record it", async () => {
    const w = world({ WORK_CLAUDE_TOKEN: "work-canary-tok" });
    await spawnWorker(w.deps, { name: "w1", provider: "claude", account: "work" });
    expect(envScript(w)).toContain("export CLAUDE_CONFIG_DIR='/home/u/.claude-work'\n");
    expect(envScript(w)).toContain("export CLAUDE_CODE_OAUTH_TOKEN='work-canary-tok'\n");
    const meta = w.sessions.get("w1")?.meta;
    expect(meta?.account).toBe("work");
    expect(JSON.stringify(meta)).not.toContain("work-canary-tok");
  });

  test("an account with a home only: the [claude] env's default token is not passed (it would sign in the default)", async () => {
    const w = world();
    await spawnWorker(w.deps, { name: "w1", provider: "claude", account: "plain" });
    expect(envScript(w)).toContain("export CLAUDE_CONFIG_DIR='/srv/claude-plain'\n");
    expect(envScript(w)).not.toContain("default-tok");
  });

  test("no account: nothing changes (the [claude] env's token, no CLAUDE_CONFIG_DIR)", async () => {
    const w = world();
    await spawnWorker(w.deps, { name: "w1", provider: "claude" });
    expect(envScript(w)).toContain("export CLAUDE_CODE_OAUTH_TOKEN='default-tok'\n");
    expect(envScript(w)).not.toContain("CLAUDE_CONFIG_DIR");
    expect(w.sessions.get("w1")?.meta?.account).toBeUndefined();
  });

  test.each([
    ["home-codex", {}, "is a codex account"],
    ["wrok", {}, "did you mean work?"],
    ["work", {}, "$WORK_CLAUDE_TOKEN, which is not set"],
  ])("--account %s: a usage error before any I/O", async (account, env, words) => {
    const w = world(env);
    await expect(spawnWorker(w.deps, { name: "w1", provider: "claude", account })).rejects.toMatchObject({
      code: "usage",
      exitCode: 2,
      message: expect.stringContaining(words),
    });
    expect(w.sessions.size).toBe(0);
    expect(w.tmux.calls).toEqual([]);
  });
});

describe("an account's home, per provider's home planner", () => {
  const context = (account: string | undefined, hostEnv: Record<string, string>): HomeContext => ({
    stateRoot: "/state",
    sessionDir: "/state/sessions/w1",
    worker: "w1",
    cwd: "/p",
    hookCommand: "sh /h.sh /log x",
    eventsLog: "/log",
    hostEnv: { HOME: "/home/u", ...hostEnv },
    workerEnvNames: [],
    launch: { account },
  });

  test("codex: a managed home of the account's own, linking the account's auth.json and copying its config.toml", () => {
    const home = getProvider("codex").home;
    const ctx = context("home-codex", getProvider("codex").accountHome("/home/u/.codex-home").hostEnv);
    expect(home?.reads(ctx)).toContain("/home/u/.codex-home/config.toml");
    const plan = home?.plan(ctx, { "/home/u/.codex-home/config.toml": 'model = "o9"\n' });
    expect(plan?.home).toBe("/state/codex-home-home-codex");
    expect(plan?.entries).toContainEqual({
      kind: "link",
      path: "/state/codex-home-home-codex/auth.json",
      target: "/home/u/.codex-home/auth.json",
    });
    expect(plan?.entries).toContainEqual({
      kind: "file",
      path: "/state/codex-home-home-codex/config.toml",
      content: 'model = "o9"\n',
      mode: 0o600,
    });
    // The default is unchanged: the shared codex-home over the user's ~/.codex.
    const plain = home?.plan(context(undefined, {}), {});
    expect(plain?.home).toBe("/state/codex-home");
    expect(plain?.entries).toContainEqual({
      kind: "link",
      path: "/state/codex-home/auth.json",
      target: "/home/u/.codex/auth.json",
    });
  });

  test("gemini: the worker's home links the auth files of <home>/.gemini", () => {
    const home = getProvider("gemini").home;
    const ctx = context("g", getProvider("gemini").accountHome("/srv/gem").hostEnv);
    const reads = home?.reads(ctx) ?? [];
    expect(reads).toContain("/srv/gem/.gemini/settings.json");
    const files = Object.fromEntries(
      reads.map((path) => [path, path.endsWith("oauth_creds.json") ? "{}" : null]),
    );
    const plan = home?.plan(ctx, files);
    expect(plan?.entries).toContainEqual({
      kind: "link",
      path: "/state/sessions/w1/gemini/.gemini/oauth_creds.json",
      target: "/srv/gem/.gemini/oauth_creds.json",
    });
  });
});
