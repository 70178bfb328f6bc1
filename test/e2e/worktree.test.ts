import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, realpathSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type CliJson, sendAndWait, spawnOk } from "../helpers/cli.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

// Workers on real tmux take seconds a test; bun's default is 5 s.
setDefaultTimeout(90_000);

/** dist/umbel, real git: spawn --worktree, the worker's work kept by kill while uncommitted. */

let sb: Sandbox;
let repo: string;
const git = (dir: string, ...args: string[]) => {
  const r = Bun.spawnSync(["git", "-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
};
const json = (text: string) => JSON.parse(text) as CliJson;

beforeAll(async () => {
  sb = await createSandbox();
  repo = join(sb.work, "repo");
  mkdirSync(join(repo, "pkg"), { recursive: true });
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, "pkg", "README"), "hello\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "first");
  // The fake trusts the folders it is told to: the worktree lives under the state root.
  writeFileSync(join(sb.cfg, "fake-trusted"), `${sb.work}\n${realpathSync(sb.dir)}\n`);
});
afterAll(async () => {
  await sb.dispose();
});

describe("spawn --worktree", () => {
  let tree: string;
  test("the worker gets its own worktree on umbel/<name> as its cwd (same subfolder)", async () => {
    const spawned = await spawnOk(sb, "wt", [
      "--worktree",
      "--cwd",
      join(repo, "pkg"),
      "--permission-mode",
      "manual",
    ]);
    tree = String((spawned.worktree as Record<string, unknown>).path);
    expect(spawned.worktree).toMatchObject({ branch: "umbel/wt", base: "main" });
    expect(tree).toBe(join(realpathSync(sb.root), "worktrees", "wt"));
    expect(spawned.cwd).toBe(join(tree, "pkg"));
    expect(git(tree, "branch", "--show-current")).toBe("umbel/wt");
    expect(json((await sb.umbel(["status", "wt", "--json"])).stdout).worktree).toEqual({
      path: tree,
      branch: "umbel/wt",
      dirty: false,
    });
  });

  test("work left uncommitted is kept by kill, which says where; committed, the next kill removes the tree and keeps the branch", async () => {
    const asked = await sendAndWait(sb, "wt", "fake:permission", ["--timeout", "20s"]);
    expect(asked.outcome.reason).toBe("input");
    await sb.umbel(["answer", "wt", "allow"]);
    expect((await sb.umbel(["wait", "wt", "--after", String(asked.baseline), "--timeout", "20s"])).code).toBe(
      0,
    );
    expect(existsSync(join(tree, "pkg", "x.txt"))).toBe(true);
    expect(existsSync(join(repo, "pkg", "x.txt"))).toBe(false);
    expect(json((await sb.umbel(["status", "wt", "--json"])).stdout).worktree).toMatchObject({ dirty: true });
    expect((await sb.umbel(["status", "wt"])).stdout).toContain(
      `worktree: ${tree} (umbel/wt, uncommitted work)`,
    );

    const kept = await sb.umbel(["kill", "wt"]);
    expect(kept.stdout).toContain(`kept ${tree}: it holds uncommitted work`);
    expect(kept.code).toBe(0);
    expect(existsSync(join(tree, "pkg", "x.txt"))).toBe(true);

    git(tree, "add", ".");
    git(tree, "commit", "-q", "-m", "the worker's work");
    const removed = await sb.umbel(["kill", "wt", "--purge", "--json"]);
    expect(json(removed.stdout)).toMatchObject({
      state: "purged",
      worktree: { removed: true, branchKept: true },
    });
    expect(existsSync(tree)).toBe(false);
    expect(git(repo, "log", "--format=%s", "umbel/wt", "-1")).toBe("the worker's work");
  });

  test("kill of a clean tree on a detached HEAD keeps its commit on a new branch and names the ignored files it deletes", async () => {
    const spawned = await spawnOk(sb, "wd", ["--worktree", "--cwd", repo]);
    const path = String((spawned.worktree as Record<string, unknown>).path);
    writeFileSync(join(repo, ".git", "info", "exclude"), "*.log\n");
    git(path, "checkout", "-q", "--detach");
    writeFileSync(join(path, "work.txt"), "detached\n");
    git(path, "add", "work.txt");
    git(path, "commit", "-q", "-m", "work on a detached HEAD");
    const commit = git(path, "rev-parse", "HEAD");
    writeFileSync(join(path, "run.log"), "a log\n");
    const killed = await sb.umbel(["kill", "wd"]);
    expect(killed.stdout).toContain(`${path} removed with 1 ignored path deleted (run.log)`);
    expect(killed.stdout).toContain(
      `its HEAD (detached at ${commit.slice(0, 12)}) held commits on no branch: kept on a new branch umbel/wd-detached`,
    );
    expect(killed.code).toBe(0);
    expect(existsSync(path)).toBe(false);
    expect(git(repo, "rev-parse", "umbel/wd-detached")).toBe(commit);
  });

  test("outside a git repository: a usage error, nothing made", async () => {
    const r = await sb.umbel(["spawn", "nogit", "--worktree", "--cwd", sb.dir]);
    expect(r.stderr).toContain("is not in a git repository");
    expect(r.code).toBe(2);
    expect(existsSync(join(sb.root, "sessions", "nogit"))).toBe(false);
  });
});
