import { join, relative } from "node:path";
import { quoteArg } from "../../core/common/quote.ts";
import { GitError, UsageError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import type { Meta } from "../../core/worker/meta.ts";
import { IGNORED_LISTED, type KillWorktree } from "../../core/worker/outputs.ts";

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
  // git makes the worktree's folders, following a link planted at worktrees/: refused here instead.
  await deps.files.ownDirectory(join(deps.store.root, "worktrees"));
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

/**
 * kill: remove what holds no work of the worker's; keep (and name) what does. Committed work is never
 * lost: a commit only the worktree's HEAD reaches (a detached HEAD, a branch moved back) gets a
 * branch of its own before the tree goes (issue 22: it was left on no branch and in no reflog, since
 * the worktree's HEAD log goes with it). The ignored files `git worktree remove` deletes are named.
 */
export async function releaseWorktree(
  deps: Deps,
  tree: NonNullable<Meta["worktree"]>,
  force: boolean,
): Promise<KillWorktree> {
  const { path, branch, base, repo } = tree;
  const dirty = await deps.git.isDirty(path);
  const none = { count: 0, paths: [] };
  if (dirty === true && !force)
    return {
      path,
      branch,
      removed: false,
      branchKept: true,
      savedBranch: null,
      ignored: none,
      note: `kept ${path}: it holds uncommitted work (commit it on ${branch}, or kill --force to discard it)`,
    };
  const merged = await deps.git.isMerged(repo, branch, base);
  const head = dirty === null ? null : await deps.git.worktreeHead(path);
  const savedBranch = head ? await keepHead(deps, tree, head, merged) : null;
  const ignoredPaths = dirty === null ? [] : await deps.git.ignoredPaths(path);
  if (dirty !== null) await deps.git.removeWorktree(repo, path, dirty);
  if (merged) await deps.git.deleteBranch(repo, branch).catch(() => undefined);
  const removed =
    dirty === null ? "already gone" : dirty ? "removed (uncommitted work discarded: --force)" : "removed";
  const kept = merged
    ? `branch ${branch} deleted (nothing ${base} lacks)`
    : `branch ${branch} kept: it has commits ${base} lacks`;
  const at = head ? `${head.branch ? `on ${head.branch} ` : "detached "}at ${head.commit.slice(0, 12)}` : "";
  const saved = savedBranch
    ? `; its HEAD (${at}) held commits on no branch: kept on a new branch ${savedBranch}`
    : "";
  const ignored = { count: ignoredPaths.length, paths: ignoredPaths.slice(0, IGNORED_LISTED) };
  return {
    path,
    branch,
    removed: true,
    branchKept: !merged,
    savedBranch,
    ignored,
    note: `${path} ${removed}${sayIgnored(ignoredPaths)}; ${kept}${saved}`,
  };
}

/** The note names this many ignored paths; the result lists IGNORED_LISTED. */
const IGNORED_NAMED = 5;

function sayIgnored(paths: readonly string[]): string {
  if (paths.length === 0) return "";
  const named = paths.slice(0, IGNORED_NAMED).join(", ");
  const more = paths.length > IGNORED_NAMED ? `, and ${paths.length - IGNORED_NAMED} more` : "";
  const what = paths.length === 1 ? "1 ignored path" : `${paths.length} ignored paths`;
  return ` with ${what} deleted (${named}${more})`;
}

/**
 * A branch for the worktree's HEAD when nothing else will keep its commits once the tree is gone: not
 * the base's history, and no ref but the worker's branch about to be deleted. null: none needed.
 */
async function keepHead(
  deps: Deps,
  tree: NonNullable<Meta["worktree"]>,
  head: { commit: string; branch: string | null },
  branchGoes: boolean,
): Promise<string | null> {
  const { repo, branch, base } = tree;
  if (await deps.git.isMerged(repo, head.commit, base)) return null;
  const holders = await deps.git.refsContaining(repo, head.commit);
  if (holders.some((ref) => !(branchGoes && ref === `refs/heads/${branch}`))) return null;
  for (let n = 1; n <= 100; n++) {
    const name = n === 1 ? `${branch}-detached` : `${branch}-detached-${n}`;
    if (await deps.git.hasBranch(repo, name)) continue;
    await deps.git.createBranch(repo, name, head.commit);
    return name;
  }
  throw new GitError(`could not find a free branch name for ${branch}'s HEAD ${head.commit}`, {
    argv: [],
    commit: head.commit,
  });
}

/** status: the worktree's branch and whether it holds uncommitted work (null: gone). */
export async function worktreeStatus(
  deps: Deps,
  tree: NonNullable<Meta["worktree"]>,
): Promise<{ path: string; branch: string; dirty: boolean | null }> {
  return { path: tree.path, branch: tree.branch, dirty: await deps.git.isDirty(tree.path) };
}
