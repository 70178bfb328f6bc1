import { describe, expect, test } from "bun:test";
import { spawnWorker } from "../../../src/operations/spawn/spawn.ts";
import { killWorker, pruneWorkers } from "../../../src/operations/worker/kill.ts";
import { statusOf } from "../../../src/operations/worker/status.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/** spawn --worktree and its kill on in-memory ports (fake git): what holds work is never removed. */

const START = { hook_event_name: "SessionStart", session_id: "S", transcript_path: "/t/s.jsonl" };

/** A repository at /repo (branch main, one commit) whose CLI starts straight to its idle screen. */
function repoWorld(): FakeWorld {
  const world = createFakeWorld();
  world.dirs.add("/repo").add("/repo/pkg");
  world.git.repos.set("/repo", { head: "main", branches: new Map([["main", ["c0"]]]) });
  world.tmux.onNewSession = ({ name }) => {
    Object.assign(world.tmux.panes.get(name) ?? {}, { screen: IDLE });
    world.hook(name, START);
  };
  return world;
}

const spawnIn = (world: FakeWorld, cwd: string, extra: object = {}) =>
  spawnWorker(world.deps, { name: "w1", provider: "claude", cwd, worktree: true, ...extra });

describe("spawn --worktree", () => {
  test("the worker runs in its own worktree on umbel/<name>, in the same subfolder", async () => {
    const world = repoWorld();
    const spawned = await spawnIn(world, "/repo/pkg");
    expect(spawned.worktree).toEqual({ path: "/state/worktrees/w1", branch: "umbel/w1", base: "main" });
    expect(spawned.cwd).toBe("/state/worktrees/w1/pkg");
    expect(world.tmux.started[0]?.cwd).toBe("/state/worktrees/w1/pkg");
    expect(world.git.worktrees.get("/state/worktrees/w1")).toMatchObject({ branch: "umbel/w1" });
    expect(await statusOf(world.deps, "w1")).toMatchObject({
      worktree: { path: "/state/worktrees/w1", branch: "umbel/w1", dirty: false },
    });
  });

  test("outside a repository: a usage error before anything is made", async () => {
    const world = repoWorld();
    await expect(spawnIn(world, "/work")).rejects.toMatchObject({ code: "usage", exitCode: 2 });
    expect(world.sessions.size).toBe(0);
    expect(world.tmux.calls).toEqual([]);
  });

  test("a spawn that fails after the worktree was made removes it and its branch", async () => {
    const world = repoWorld();
    world.tmux.onNewSession = ({ name }) =>
      Object.assign(world.tmux.panes.get(name) ?? {}, { screen: "boom\n", dead: true, deadStatus: 1 });
    await expect(spawnIn(world, "/repo")).rejects.toMatchObject({ code: "spawn-failed" });
    expect(world.git.worktrees.size).toBe(0);
    expect([...(world.git.repos.get("/repo")?.branches.keys() ?? [])]).toEqual(["main"]);
  });

  test("a branch umbel/<name> left by an earlier worker is never touched by a failed spawn", async () => {
    const world = repoWorld();
    world.git.repos.get("/repo")?.branches.set("umbel/w1", ["c0", "kept-work"]);
    await expect(spawnIn(world, "/repo")).rejects.toMatchObject({ code: "git" });
    expect(world.git.repos.get("/repo")?.branches.get("umbel/w1")).toEqual(["c0", "kept-work"]);
  });
});

describe("kill of a worker with a worktree", () => {
  test("clean and nothing new: the worktree and its branch are removed", async () => {
    const world = repoWorld();
    await spawnIn(world, "/repo");
    const killed = await killWorker(world.deps, { name: "w1" });
    expect(killed.worktree).toMatchObject({ removed: true, branchKept: false });
    expect(world.git.worktrees.size).toBe(0);
    expect(world.git.repos.get("/repo")?.branches.has("umbel/w1")).toBe(false);
  });

  test("clean with commits the base lacks: the worktree goes, the branch stays", async () => {
    const world = repoWorld();
    await spawnIn(world, "/repo");
    world.git.commit("/repo", "umbel/w1");
    const killed = await killWorker(world.deps, { name: "w1", purge: true });
    expect(killed).toMatchObject({ state: "purged", worktree: { removed: true, branchKept: true } });
    expect(killed.worktree?.note).toContain("branch umbel/w1 kept: it has commits main lacks");
    expect(world.git.repos.get("/repo")?.branches.has("umbel/w1")).toBe(true);
  });

  test("prune says what it did with a dead worker's worktree (ignored files named), as kill does", async () => {
    const world = repoWorld();
    await spawnIn(world, "/repo");
    const tree = world.git.worktrees.get("/state/worktrees/w1");
    if (tree) tree.ignored = [".env", "node_modules/"];
    world.tmux.panes.delete("w1");
    const pruned = await pruneWorkers(world.deps);
    expect(pruned).toMatchObject({
      removed: ["w1"],
      worktrees: [{ name: "w1", removed: true, ignored: { count: 2, paths: [".env", "node_modules/"] } }],
    });
    expect(pruned.worktrees?.[0]?.note).toContain("with 2 ignored paths deleted (.env, node_modules/)");
  });

  test("uncommitted work is kept and named, even with --purge; --force discards it", async () => {
    const world = repoWorld();
    await spawnIn(world, "/repo");
    const tree = world.git.worktrees.get("/state/worktrees/w1");
    if (tree) tree.dirty = true;
    expect((await statusOf(world.deps, "w1")).worktree?.dirty).toBe(true);
    const kept = await killWorker(world.deps, { name: "w1" });
    expect(kept.worktree).toMatchObject({ removed: false, branchKept: true });
    expect(kept.worktree?.note).toContain("kept /state/worktrees/w1: it holds uncommitted work");
    expect(world.git.worktrees.has("/state/worktrees/w1")).toBe(true);
    const again = await killWorker(world.deps, { name: "w1", purge: true });
    expect(again.worktree?.removed).toBe(false);
    expect(world.git.worktrees.has("/state/worktrees/w1")).toBe(true);
  });

  test("--force removes a worktree with uncommitted work (its committed branch stays if unmerged)", async () => {
    const world = repoWorld();
    await spawnIn(world, "/repo");
    const tree = world.git.worktrees.get("/state/worktrees/w1");
    if (tree) tree.dirty = true;
    const forced = await killWorker(world.deps, { name: "w1", force: true });
    expect(forced.worktree).toMatchObject({ removed: true });
    expect(forced.worktree?.note).toContain("uncommitted work discarded");
    expect(world.git.worktrees.size).toBe(0);
  });
});
