import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createDeps } from "../../src/adapters/deps.ts";
import type { Deps } from "../../src/core/ports.ts";
import { makeWorktree, planWorktree, releaseWorktree } from "../../src/operations/fleet/worktree.ts";

// Declared here: a preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * Issue 22 item 8, on a real git: kill of a clean `--worktree` worker deleted its branch as "nothing
 * main lacks" while the worker's commit sat on a detached HEAD (then on no branch and in no reflog),
 * and deleted ignored files without a word. Committed work stays reachable; what is removed is said.
 */

let dir: string;
let repo: string;
let deps: Deps;
const git = (cwd: string, ...args: string[]) => {
  const r = Bun.spawnSync(["git", "-C", cwd, "-c", "user.name=t", "-c", "user.email=t@example.com", ...args]);
  if (r.exitCode !== 0) throw new Error(`git ${args.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
};
const commitIn = (tree: string, file: string, message: string) => {
  writeFileSync(join(tree, file), `${message}\n`);
  git(tree, "add", file);
  git(tree, "commit", "-q", "-m", message);
  return git(tree, "rev-parse", "HEAD");
};
/** The refs that still reach a commit (none: only a reflog or nothing keeps it). */
const refsWith = (commit: string) =>
  git(repo, "for-each-ref", "--contains", commit, "--format=%(refname:short)").split("\n").filter(Boolean);

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "umbel-wt-"));
  repo = join(dir, "repo");
  mkdirSync(repo);
  git(repo, "init", "-q", "-b", "main");
  writeFileSync(join(repo, ".gitignore"), "node_modules/\n.env\n");
  writeFileSync(join(repo, "README"), "hello\n");
  git(repo, "add", ".");
  git(repo, "commit", "-q", "-m", "first");
  deps = createDeps(
    { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, UMBEL_HOME: join(dir, "state") },
    { cwd: repo },
  );
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

async function made(name: string) {
  const plan = await planWorktree(deps, name, repo, undefined);
  mkdirSync(join(dir, "state", "worktrees"), { recursive: true });
  await makeWorktree(deps, plan);
  const { cwd: _cwd, ...tree } = plan;
  return tree;
}

describe("kill's worktree release (real git)", () => {
  test("a commit on a detached HEAD: kept on a new branch umbel/NAME-detached, and said", async () => {
    const tree = await made("w1");
    git(tree.path, "checkout", "-q", "--detach");
    const commit = commitIn(tree.path, "work.txt", "detached work");
    const result = await releaseWorktree(deps, tree, false);
    expect(result).toMatchObject({ removed: true, savedBranch: "umbel/w1-detached" });
    expect(result.note).toContain(
      `its HEAD (detached at ${commit.slice(0, 12)}) held commits on no branch: kept on a new branch umbel/w1-detached`,
    );
    expect(existsSync(tree.path)).toBe(false);
    expect(refsWith(commit)).toEqual(["umbel/w1-detached"]);
  });

  test("a detached HEAD with nothing new: no branch made, umbel/NAME deleted as before", async () => {
    const tree = await made("w2");
    git(tree.path, "checkout", "-q", "--detach");
    const result = await releaseWorktree(deps, tree, false);
    expect(result).toMatchObject({ removed: true, branchKept: false, savedBranch: null });
    expect(git(repo, "branch", "--list", "umbel/*")).toBe("");
  });

  test("the branch moved back (reset) while HEAD's commits are on no other ref: HEAD is kept too", async () => {
    const tree = await made("w3");
    const first = commitIn(tree.path, "a.txt", "one");
    git(tree.path, "checkout", "-q", "--detach");
    git(tree.path, "branch", "-f", "umbel/w3", "main");
    const result = await releaseWorktree(deps, tree, false);
    expect(result.savedBranch).toBe("umbel/w3-detached");
    expect(refsWith(first)).toEqual(["umbel/w3-detached"]);
  });

  test("the name umbel/NAME-detached is taken: the next free one", async () => {
    const tree = await made("w4");
    git(repo, "branch", "umbel/w4-detached", "main");
    git(tree.path, "checkout", "-q", "--detach");
    const commit = commitIn(tree.path, "b.txt", "two");
    const result = await releaseWorktree(deps, tree, false);
    expect(result.savedBranch).toBe("umbel/w4-detached-2");
    expect(refsWith(commit)).toEqual(["umbel/w4-detached-2"]);
  });

  test("work on a branch of the worker's own: reachable already, nothing made", async () => {
    const tree = await made("w5");
    git(tree.path, "switch", "-q", "-c", "feature");
    const commit = commitIn(tree.path, "c.txt", "three");
    const result = await releaseWorktree(deps, tree, false);
    expect(result).toMatchObject({ removed: true, savedBranch: null });
    expect(refsWith(commit)).toEqual(["feature"]);
  });

  test("ignored files: removed with the tree, and named (count and paths)", async () => {
    const tree = await made("w6");
    mkdirSync(join(tree.path, "node_modules", "x"), { recursive: true });
    writeFileSync(join(tree.path, "node_modules", "x", "index.js"), "1\n");
    writeFileSync(join(tree.path, ".env"), "SECRET=1\n");
    const result = await releaseWorktree(deps, tree, false);
    expect(result).toMatchObject({ removed: true, ignored: { count: 2, paths: [".env", "node_modules/"] } });
    expect(result.note).toContain("removed with 2 ignored paths deleted (.env, node_modules/)");
  });

  test("a clean tree with nothing ignored says nothing of ignored files", async () => {
    const tree = await made("w7");
    const result = await releaseWorktree(deps, tree, false);
    expect(result).toMatchObject({ removed: true, ignored: { count: 0, paths: [] } });
    expect(result.note).not.toContain("ignored");
  });
});
