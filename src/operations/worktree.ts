import { join, relative } from "node:path";
import { UsageError } from "../core/errors.ts";
import type { Meta } from "../core/meta.ts";
import type { KillWorktree } from "../core/outputs.ts";
import type { Deps } from "../core/ports.ts";
import { quoteArg } from "../core/quote.ts";

/**
 * `spawn --worktree`: the worker gets its own `git worktree` on a new branch `umbel/<name>`, under
 * the state root (`worktrees/<name>`, never in the user's project), as its cwd. `kill` removes it only
 * when it holds no uncommitted work (or with --force), and deletes the branch only when its commits
 * are all in the base: otherwise it keeps them and says where they are.
 */

export type WorktreePlan = NonNullable<Meta["worktree"]> & {
  /** The worker's cwd inside the worktree (the same subfolder of the repository as the cwd given). */
  readonly cwd: string;
};

/** Checked before anything is made: cwd in a repository, no leftover worktree of that name. */
export async function planWorktree(
  deps: Deps,
  name: string,
  cwd: string,
  base: string | undefined,
): Promise<WorktreePlan> {
  const top = await deps.git.toplevel(cwd);
  if (top === null)
    throw new UsageError(`--worktree: ${quoteArg(cwd, 200)} is not in a git repository`, { cwd });
  const repo = await deps.files.realpath(top);
  const path = join(deps.store.root, "worktrees", name);
  if (await deps.files.isDirectory(path))
    throw new UsageError(
      `--worktree: ${path} is still there (kept from an earlier worker ${name}); remove it first (git worktree remove), or use another name`,
      { path },
    );
  const sub = relative(repo, cwd);
  return {
    repo,
    path,
    branch: `umbel/${name}`,
    base: base ?? (await deps.git.head(repo)),
    cwd: sub === "" || sub.startsWith("..") ? path : join(path, sub),
  };
}

export async function makeWorktree(deps: Deps, plan: WorktreePlan): Promise<void> {
  await deps.git.addWorktree(plan.repo, plan.path, plan.branch, plan.base);
}

/** spawn's unwind: the worktree and branch it just made hold nothing of anyone's yet. */
export async function unmakeWorktree(deps: Deps, plan: WorktreePlan): Promise<void> {
  await deps.git.removeWorktree(plan.repo, plan.path, true).catch(() => undefined);
  await deps.git.deleteBranch(plan.repo, plan.branch).catch(() => undefined);
}

/** kill: remove what holds no work of the worker's; keep (and name) what does. */
export async function releaseWorktree(
  deps: Deps,
  tree: NonNullable<Meta["worktree"]>,
  force: boolean,
): Promise<KillWorktree> {
  const { path, branch, base, repo } = tree;
  const dirty = await deps.git.isDirty(path);
  if (dirty === true && !force)
    return {
      path,
      branch,
      removed: false,
      branchKept: true,
      note: `kept ${path}: it holds uncommitted work (commit it on ${branch}, or kill --force to discard it)`,
    };
  if (dirty !== null) await deps.git.removeWorktree(repo, path, dirty);
  const merged = await deps.git.isMerged(repo, branch, base);
  if (merged) await deps.git.deleteBranch(repo, branch).catch(() => undefined);
  const removed =
    dirty === null ? "already gone" : dirty ? "removed (uncommitted work discarded: --force)" : "removed";
  const kept = merged
    ? `branch ${branch} deleted (nothing ${base} lacks)`
    : `branch ${branch} kept: it has commits ${base} lacks`;
  return { path, branch, removed: true, branchKept: !merged, note: `${path} ${removed}; ${kept}` };
}

/** status: the worktree's branch and whether it holds uncommitted work (null: gone). */
export async function worktreeStatus(
  deps: Deps,
  tree: NonNullable<Meta["worktree"]>,
): Promise<{ path: string; branch: string; dirty: boolean | null }> {
  return { path: tree.path, branch: tree.branch, dirty: await deps.git.isDirty(tree.path) };
}
