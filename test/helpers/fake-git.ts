import { GitError } from "../../src/core/errors.ts";
import type { GitPort } from "../../src/core/ports.ts";

/** One repository: its branches (each a list of commit ids) and what HEAD names. */
export type FakeRepo = { head: string; branches: Map<string, string[]> };
/** A worktree: where it is, its repo and branch, and whether it holds uncommitted work. */
export type FakeWorktree = { repo: string; branch: string; dirty: boolean; ignored?: string[] };

/** An in-memory git for the worktree operations: repos by top dir, worktrees by path. */
export type FakeGit = GitPort & {
  readonly repos: Map<string, FakeRepo>;
  readonly worktrees: Map<string, FakeWorktree>;
  /** Adds a commit to a branch (the work a worker committed). */
  commit(repo: string, branch: string): void;
};

export function createFakeGit(): FakeGit {
  const repos = new Map<string, FakeRepo>();
  const worktrees = new Map<string, FakeWorktree>();
  let commits = 0;
  const repoOf = (dir: string): [string, FakeRepo] | null => {
    for (const [top, repo] of repos) if (dir === top || dir.startsWith(`${top}/`)) return [top, repo];
    return null;
  };
  const must = (dir: string): FakeRepo => {
    const found = repoOf(dir);
    if (!found) throw new GitError(`fatal: not a git repository: ${dir}`, {});
    return found[1];
  };
  const git: FakeGit = {
    repos,
    worktrees,
    commit(repo, branch) {
      must(repo).branches.get(branch)?.push(`c${++commits}`);
    },
    async toplevel(dir) {
      return repoOf(dir)?.[0] ?? null;
    },
    async head(repo) {
      return must(repo).head;
    },
    async addWorktree(repo, path, branch, base) {
      const r = must(repo);
      const from = r.branches.get(base);
      if (!from) throw new GitError(`fatal: invalid reference: ${base}`, {});
      if (r.branches.has(branch)) throw new GitError(`fatal: a branch named '${branch}' already exists`, {});
      if (worktrees.has(path)) throw new GitError(`fatal: '${path}' already exists`, {});
      r.branches.set(branch, [...from]);
      worktrees.set(path, { repo, branch, dirty: false });
    },
    async isDirty(path) {
      return worktrees.get(path)?.dirty ?? null;
    },
    async isMerged(repo, branch, base) {
      const r = must(repo);
      const mine = r.branches.get(branch) ?? [];
      const theirs = r.branches.get(base);
      return theirs === undefined || mine.every((c) => theirs.includes(c));
    },
    async removeWorktree(_repo, path, force) {
      const tree = worktrees.get(path);
      if (tree?.dirty && !force)
        throw new GitError(`fatal: '${path}' contains modified or untracked files`, {});
      worktrees.delete(path);
    },
    async deleteBranch(repo, branch) {
      must(repo).branches.delete(branch);
    },
    async worktreeHead(path) {
      const tree = worktrees.get(path);
      if (!tree) return null;
      const commit = must(tree.repo).branches.get(tree.branch)?.at(-1);
      return commit === undefined ? null : { commit, branch: tree.branch };
    },
    async refsContaining(repo, commit) {
      return [...must(repo).branches]
        .filter(([, ids]) => ids.includes(commit))
        .map(([b]) => `refs/heads/${b}`);
    },
    async hasBranch(repo, branch) {
      return must(repo).branches.has(branch);
    },
    async createBranch(repo, branch, commit) {
      const r = must(repo);
      const from = [...r.branches.values()].find((ids) => ids.includes(commit)) ?? [commit];
      r.branches.set(branch, from.slice(0, from.indexOf(commit) + 1));
    },
    async ignoredPaths(path) {
      return worktrees.get(path)?.ignored ?? [];
    },
  };
  return git;
}
