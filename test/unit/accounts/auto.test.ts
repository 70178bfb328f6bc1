import { describe, expect, test } from "bun:test";
import { type AccountWindows, unseen } from "../../../src/core/accounts/placement.ts";
import { NoHeadroomError } from "../../../src/core/errors.ts";
import { renderSpawn, renderSpawnNotes } from "../../../src/faces/verbs/render-mcp.ts";
import { placeSpawn } from "../../../src/operations/accounts/place.ts";
import { spawnOrClaim } from "../../../src/operations/pool/claim.ts";
import { spawnWorker } from "../../../src/operations/spawn/spawn.ts";
import { streamLogs } from "../../../src/operations/worker/logs.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/** spawn --account auto (issue 24 §2): placed from the state store alone, then spawned as --account <picked>. */

const START = { hook_event_name: "SessionStart", session_id: "S", transcript_path: "/t/s.jsonl" };
const CONFIG = `[accounts.work]
provider = "claude"
home = "/srv/claude-work"

[accounts.play]
provider = "claude"
home = "/srv/claude-play"

[accounts.api]
provider = "claude"
env = { ANTHROPIC_API_KEY = "TEAM_KEY" }

[accounts.home-codex]
provider = "codex"
home = "/srv/codex-home"
`;
const LATER = new Date(1_000_000 + 3 * 3_600_000).toISOString();
const SOONER = new Date(1_000_000 + 3_600_000).toISOString();

function world(): FakeWorld {
  const w = createFakeWorld({ env: { PATH: "/usr/bin:/bin", HOME: "/home/u", TEAM_KEY: "k" } });
  w.files.set("/state/config.toml", CONFIG);
  w.tmux.onNewSession = ({ name }) => {
    const pane = w.tmux.panes.get(name);
    if (pane) pane.screen = IDLE;
    w.hook(name, START);
  };
  return w;
}

const used = (account: string | null, percent: number, resetsAt = LATER): AccountWindows => ({
  ...unseen("claude", account),
  windows: [{ name: "five_hour", usedPercent: percent, resetsAt, minutes: 300 }],
  seenAt: new Date(1_000_000).toISOString(),
  from: "w0",
});
const limitedUntil = (account: string | null, resetsAt: string): AccountWindows => ({
  ...unseen("claude", account),
  lastLimit: {
    at: new Date(1_000_000).toISOString(),
    worker: "w0",
    limit: { window: "five_hour", resetsAt, message: null },
  },
});
async function record(w: FakeWorld, known: AccountWindows): Promise<void> {
  await w.deps.store.updateAccountWindows(known.provider, known.account, () => known);
}

describe("spawn --account auto", () => {
  test("the account with headroom: spawned as --account <picked>, the decision in the result and meta.json", async () => {
    const w = world();
    await record(w, used(null, 95));
    await record(w, used("work", 80));
    await record(w, used("play", 20));
    const r = await spawnWorker(w.deps, { name: "w1", provider: "claude", account: "auto" });
    expect(r.placement?.account).toBe("play");
    expect(r.placement?.reason).toContain("play");
    expect(r.placement?.considered.map((c) => c.account)).toEqual([null, "api", "play", "work"]);
    const meta = w.sessions.get("w1")?.meta;
    expect(meta?.account).toBe("play");
    expect(meta?.placement).toEqual(r.placement);
    expect(w.tmux.started[0]?.bufferContent).toContain("export CLAUDE_CONFIG_DIR='/srv/claude-play'\n");
  });

  test("an account whose limit has not reset is skipped; an API-key one never picked", async () => {
    const w = world();
    await record(w, used(null, 100, SOONER));
    await record(w, limitedUntil("play", LATER));
    await record(w, used("work", 70));
    const r = await spawnWorker(w.deps, { name: "w1", provider: "claude", account: "auto" });
    expect(r.placement?.account).toBe("work");
    const api = r.placement?.considered.find((c) => c.account === "api");
    expect(api?.skipped).toContain("API key");
  });

  test("near equals: the fewest live workers, counted from meta and exit records (no tmux call)", async () => {
    const w = world();
    for (const [name, account] of [
      ["d1", null],
      ["d2", null],
      ["k1", "work"],
      ["gone", "play"],
    ] as const) {
      addWorker(w, name);
      const s = w.sessions.get(name);
      if (s?.meta && account) s.meta = { ...s.meta, account };
    }
    const gone = w.sessions.get("gone");
    if (gone) gone.exit = { exitCode: 0 };
    const placed = await placeSpawn(w.deps, { name: "w1", provider: "claude", account: "auto" });
    expect(w.tmux.calls).toEqual([]);
    expect(placed.placement?.account).toBe("play");
    expect(placed.input.account).toBe("play");
    expect(placed.placement?.considered.find((c) => c.account === null)?.live).toBe(2);
  });

  test("the default sign-in picked: the spawn goes on with no account", async () => {
    const w = world();
    await record(w, used("work", 90));
    await record(w, used("play", 90));
    const placed = await placeSpawn(w.deps, { name: "w1", provider: "claude", account: "auto" });
    expect(placed.placement?.account).toBeNull();
    expect(placed.input.account).toBeUndefined();
  });

  test("no headroom anywhere: NoHeadroomError (exit 120) naming the earliest reset, nothing made, no tmux call", async () => {
    const w = world();
    await record(w, used(null, 100, LATER));
    await record(w, limitedUntil("play", SOONER));
    await record(w, used("work", 100, LATER));
    const error = await spawnOrClaim(w.deps, { name: "w1", provider: "claude", account: "auto" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(NoHeadroomError);
    expect(error).toMatchObject({
      code: "no-headroom",
      exitCode: 120,
      message: expect.stringContaining(`the earliest reset is ${SOONER}`),
      data: { provider: "claude", earliestReset: SOONER },
    });
    expect(w.sessions.size).toBe(0);
    expect(w.tmux.calls).toEqual([]);
  });

  test("a named account or none: no placement", async () => {
    const w = world();
    const r = await spawnWorker(w.deps, { name: "w1", provider: "claude", account: "work" });
    expect(r.placement).toBeUndefined();
    expect(w.sessions.get("w1")?.meta?.placement).toBeUndefined();
  });

  test("the MCP text and spawn's stderr say how the account was chosen", async () => {
    const w = world();
    await record(w, used(null, 95));
    const r = await spawnWorker(w.deps, { name: "w1", provider: "claude", account: "auto" });
    const reason = r.placement?.reason ?? "?";
    expect(renderSpawn(r)).toContain(`Placed by account auto: ${reason}.`);
    expect(renderSpawnNotes(r)).toBe(`umbel: w1: placed by --account auto: ${reason}\n`);
    expect(renderSpawnNotes({ ...r, placement: undefined })).toBe("");
  });

  test("logs: an umbel:placement line first", async () => {
    const w = world();
    await record(w, used(null, 95));
    await spawnWorker(w.deps, { name: "w1", provider: "claude", account: "auto" });
    const lines: { name: string; payload: unknown }[] = [];
    await streamLogs(w.deps, { name: "w1" }, (e) => lines.push(e));
    expect(lines[0]?.name).toBe("umbel:placement");
    expect(lines[0]?.payload).toMatchObject({ account: "play" });
    expect(lines[1]?.name).toBe("SessionStart");
  });
});
