import { describe, expect, test } from "bun:test";
import { SPARE_MARKER } from "../../../src/core/pool/pool.ts";
import { PoolInput } from "../../../src/core/pool/schema.ts";
import { claimSpare, spawnOrClaim } from "../../../src/operations/pool/claim.ts";
import { runPool } from "../../../src/operations/pool/pool.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/**
 * The warm pool on in-memory ports: spares are ordinary workers with meta.pool, claimed atomically
 * by a spawn with the same key (never an environment value written), refilled by a detached
 * `umbel pool warm`, drained by `pool drain`.
 */
const START = { hook_event_name: "SessionStart", session_id: "S", transcript_path: "/t/s.jsonl" };

/** A claude TUI that is ready at once, and a compiled umbel (so a claim starts a refill). */
function world(env: Record<string, string> = {}): FakeWorld {
  const w = createFakeWorld({
    env: { PATH: "/usr/bin:/bin", HOME: "/home/u", ...env },
  });
  Object.assign(w.deps.system, { selfCommand: () => ["/opt/umbel"] });
  w.tmux.onNewSession = ({ name }) => {
    const pane = w.tmux.panes.get(name);
    if (pane) pane.screen = IDLE;
    w.hook(name, START);
  };
  return w;
}

const warm = (w: FakeWorld, over: Partial<PoolInput> = {}) =>
  runPool(w.deps, { action: "warm", provider: "claude", count: 2, ...over } as PoolInput);

describe("pool warm", () => {
  test("starts N spares: ready, marked claimable, their TTL kept by the wrapper, no value in meta", async () => {
    const w = world({ SECRET_TOKEN: "s3cr3t-value" });
    const r = await warm(w, { env: { SECRET_TOKEN: { fromEnv: "SECRET_TOKEN" } }, ttl: 60_000 });
    expect(r.made).toHaveLength(2);
    expect(r.spares.map((s) => s.state)).toEqual(["ready", "ready"]);
    for (const name of r.made) {
      const s = w.sessions.get(name);
      expect(name).toMatch(/^pool-[0-9a-f]{8}$/);
      expect(s?.meta?.pool).toMatchObject({ size: 2, ttlMs: 60_000, state: "spare" });
      expect(s?.files?.get(SPARE_MARKER)).toBe("");
      expect(JSON.stringify(s?.meta)).not.toContain("s3cr3t-value");
    }
    const command = w.tmux.started[0]?.command ?? [];
    expect(command.slice(2, 4)).toEqual(["--retire-after", "60"]);
  });

  test("a spare trusts its folder for its own session only, and says each dialog it answered", async () => {
    const w = world({ ANTHROPIC_API_KEY: "sk-ant-0123456789abcdefghij" });
    w.tmux.onNewSession = ({ name }) => {
      const pane = w.tmux.panes.get(name);
      if (!pane) return;
      pane.screen = "  Detected a custom API key in your environment\n\n  ❯ Yes\n    No (recommended)\n";
      w.tmux.onKeys = (target, keys) => {
        const asked = w.tmux.panes.get(target);
        if (!asked || !keys.includes("Enter")) return;
        asked.screen = IDLE;
        w.hook(target, START);
      };
    };
    const r = await warm(w, { count: 1, env: { ANTHROPIC_API_KEY: { fromEnv: "ANTHROPIC_API_KEY" } } });
    // Made before anyone asked for its folder: never a trust claude would keep (CLAUDE_CODE_SANDBOXED).
    expect(w.tmux.started[0]?.bufferContent).toContain("CLAUDE_CODE_SANDBOXED='1'");
    expect(r.dialogs).toEqual([
      {
        worker: r.made[0] ?? "",
        provider: "claude",
        dialog: "api-key",
        answer: "Yes",
        lasting: true,
        record: "/home/u/.claude.json",
      },
    ]);
  });

  test("tops up: a second warm of the same spawn starts only what is missing", async () => {
    const w = world();
    await warm(w);
    const again = await warm(w, { count: 3 });
    expect(again.made).toHaveLength(1);
    expect(again.spares).toHaveLength(3);
  });

  test("three concurrent warms of one spawn start exactly N spares (one warm of a key at a time)", async () => {
    const w = world();
    const runs = await Promise.all([warm(w), warm(w), warm(w)]);
    expect(runs.flatMap((r) => r.made)).toHaveLength(2);
    expect(runs.map((r) => r.spares.length)).toEqual([2, 2, 2]);
  });
});

describe("claiming a spare", () => {
  test("-p (anonymous): the same spawn claims one; a refill with names only, values in its env", async () => {
    const w = world({ TOKEN: "abc" });
    await warm(w, { env: { TOKEN: "abc", OTHER: { fromEnv: "TOKEN" } }, count: 1 });
    const claimed = await claimSpare(
      w.deps,
      { name: "p-1", provider: "claude", env: { TOKEN: "abc", OTHER: { fromEnv: "TOKEN" } } },
      { rename: false },
    );
    expect(claimed?.name).toMatch(/^pool-/);
    expect(claimed?.meta.pool?.state).toBe("claimed");
    expect(w.sessions.get(claimed?.name ?? "")?.files?.get(SPARE_MARKER)).toBeUndefined();
    // The caller starts the refill when it suits it (-p: once its turn is over).
    expect(w.detached).toHaveLength(0);
    claimed?.refill();
    expect(w.detached).toHaveLength(1);
    const refill = w.detached[0];
    expect(refill?.argv.slice(0, 4)).toEqual(["/opt/umbel", "pool", "warm", "1"]);
    expect(refill?.argv.join(" ")).not.toContain("abc");
    expect(refill?.argv).toEqual(
      expect.arrayContaining(["--env", "TOKEN", "--env", "OTHER", "--cwd", "/work"]),
    );
    expect(refill?.env).toMatchObject({ TOKEN: "abc", OTHER: "abc" });
    // Claimed: no second claim of it.
    expect(
      await claimSpare(
        w.deps,
        { name: "p-2", provider: "claude", env: { TOKEN: "abc", OTHER: { fromEnv: "TOKEN" } } },
        { rename: false },
      ),
    ).toBeNull();
  });

  test.each([
    ["another model", { model: "opus" }],
    ["another env value", { env: { TOKEN: "xyz" } }],
    ["another cwd", { cwd: "/" }],
    ["a resume (never a fresh conversation)", { resumeSession: "11111111-1111-4111-8111-111111111111" }],
    [
      "--structured (-p --json-schema): the StructuredOutput server starts with the CLI",
      { structured: true },
    ],
    ["another --allow (policy.tsv is written at spawn)", { allow: ["Bash(git:*)"] }],
    ["another --deny", { deny: ["Bash(rm:*)"] }],
    [
      "--non-interactive (umbel -p): a spare started in the TUI's own mode (claude: auto) would run what -p refuses",
      { nonInteractive: true },
    ],
    ["--notify (its command would be told the spare's name)", { notify: "true" }],
    [
      "another --on-limit (claude's own auto-continue is set in its settings at start)",
      { onLimit: "continue" as const },
    ],
  ])("%s: no claim", async (_what, over) => {
    const w = world();
    w.dirs.add("/");
    await warm(w, { env: { TOKEN: "abc" }, count: 1 });
    const claimed = await claimSpare(
      w.deps,
      { name: "p-1", provider: "claude", env: { TOKEN: "abc" }, ...over },
      { rename: false },
    );
    expect(claimed).toBeNull();
  });

  test("--structured, --allow and --deny are part of the key: a spare warmed with them is claimed with them", async () => {
    const w = world();
    // The CLI connects to umbel's StructuredOutput server as it starts.
    const start = w.tmux.onNewSession;
    w.tmux.onNewSession = (session) => {
      start(session);
      w.files.set(w.deps.guards.path(session.name, "server-ready"), "1\n");
    };
    const fleet = {
      structured: true,
      allow: ["Read"],
      deny: ["Bash(rm:*)"],
      onLimit: "continue" as const,
      nonInteractive: true,
    };
    await warm(w, { ...fleet, count: 1 });
    expect(await claimSpare(w.deps, { name: "p-0", provider: "claude" }, { rename: false })).toBeNull();
    const claimed = await claimSpare(
      w.deps,
      { name: "p-1", provider: "claude", ...fleet },
      { rename: false },
    );
    expect(claimed?.name).toMatch(/^pool-/);
    claimed?.refill();
    expect(w.detached[0]?.argv).toEqual(
      expect.arrayContaining([
        "--structured",
        "--allow",
        "Read",
        "--deny",
        "Bash(rm:*)",
        "--on-limit",
        "continue",
        "--non-interactive",
      ]),
    );
  });

  test("--account is part of the key: a spare on one account is never claimed for another, or for the default", async () => {
    const w = world({ WORK_TOKEN: "t" });
    w.dirs.add("/");
    w.files.set(
      `${w.deps.store.root}/config.toml`,
      '[accounts.work]\nprovider = "claude"\nhome = "/srv/w"\nenv = { CLAUDE_CODE_OAUTH_TOKEN = "WORK_TOKEN" }\n',
    );
    await warm(w, { account: "work", count: 1 });
    expect(await claimSpare(w.deps, { name: "p-0", provider: "claude" }, { rename: false })).toBeNull();
    const claimed = await claimSpare(
      w.deps,
      { name: "p-1", provider: "claude", account: "work" },
      { rename: false },
    );
    expect(claimed?.name).toMatch(/^pool-/);
    claimed?.refill();
    expect(w.detached[0]?.argv).toEqual(expect.arrayContaining(["--account", "work"]));
  });

  test("--account auto places first, then claims a spare of the picked account (the refill warms that one)", async () => {
    const w = world({ WORK_TOKEN: "t" });
    w.dirs.add("/");
    w.files.set(
      `${w.deps.store.root}/config.toml`,
      '[accounts.work]\nprovider = "claude"\nhome = "/srv/w"\nenv = { CLAUDE_CODE_OAUTH_TOKEN = "WORK_TOKEN" }\n',
    );
    // The default sign-in is at 95%: work (nothing seen) has the headroom.
    await w.deps.store.updateAccountWindows("claude", null, (known) => ({
      ...known,
      windows: [{ name: "five_hour", usedPercent: 95, resetsAt: null, minutes: 300 }],
      seenAt: new Date(w.clock.now()).toISOString(),
      from: "x",
    }));
    await warm(w, { account: "work", count: 1 });
    const spawned = await spawnOrClaim(w.deps, { name: "a1", provider: "claude", account: "auto" });
    expect(spawned.placement?.account).toBe("work");
    expect(w.tmux.started).toHaveLength(1);
    expect(w.sessions.get("a1")?.meta).toMatchObject({ account: "work", placement: spawned.placement });
    expect(w.detached[0]?.argv).toEqual(expect.arrayContaining(["--account", "work"]));
    expect(w.detached[0]?.argv).not.toContain("auto");
  });

  test("pool warm --account auto: a usage error (placement is a spawn's, not a pool's)", async () => {
    const w = world();
    await expect(warm(w, { account: "auto" })).rejects.toMatchObject({ code: "usage" });
  });

  test("pool warm takes no --notify (a claimed spare's hooks would name the spare)", () => {
    expect(PoolInput.safeParse({ action: "warm", notify: "true" }).success).toBe(false);
  });

  test("a dead spare is never handed out", async () => {
    const w = world();
    const r = await warm(w, { count: 1 });
    const pane = w.tmux.panes.get(r.made[0] ?? "");
    if (pane) pane.dead = true;
    expect(await claimSpare(w.deps, { name: "p-1", provider: "claude" }, { rename: false })).toBeNull();
  });

  test("spawn NAME takes a spare over: the tmux session and the directory become NAME", async () => {
    const w = world();
    const [spare] = (await warm(w, { count: 1 })).made;
    const r = await spawnOrClaim(w.deps, { name: "reviewer", provider: "claude" });
    expect(w.detached).toHaveLength(1);
    expect(r).toMatchObject({ name: "reviewer", state: "ready", dialogsAnswered: [] });
    expect(w.tmux.panes.has("reviewer")).toBe(true);
    expect(w.tmux.panes.has(spare ?? "")).toBe(false);
    expect(w.sessions.get("reviewer")?.meta).toMatchObject({
      name: "reviewer",
      pool: { state: "claimed", alias: spare },
    });
    expect(w.aliases.get(spare ?? "")).toBe("reviewer");
  });

  test("spawn refuses the spares' own prefix", async () => {
    await expect(spawnOrClaim(world().deps, { name: "pool-mine", provider: "claude" })).rejects.toMatchObject(
      {
        code: "usage",
      },
    );
  });
});

describe("pool ls / drain", () => {
  test("ls lists every unclaimed spare; drain removes them (and nothing in use)", async () => {
    const w = world();
    await warm(w, { count: 2 });
    const claimed = await claimSpare(w.deps, { name: "p-1", provider: "claude" }, { rename: false });
    const listed = await runPool(w.deps, { action: "ls", provider: "claude" } as PoolInput);
    expect(listed.spares).toHaveLength(1);
    const drained = await runPool(w.deps, { action: "drain", provider: "claude" } as PoolInput);
    expect(drained.removed).toHaveLength(1);
    expect(w.sessions.has(claimed?.name ?? "")).toBe(true);
    expect((await runPool(w.deps, { action: "ls", provider: "claude" } as PoolInput)).spares).toEqual([]);
  });
});
