import { GitError, ProgramMissingError } from "../core/errors.ts";
import type { GitPort } from "../core/ports.ts";
import { runProcess } from "./process.ts";

/** A healthy git answers these in milliseconds; a checkout of a big tree may take seconds. */
const GIT_TIMEOUT_MS = 60_000;

/**
 * git as a process, with the caller's PATH, HOME (for the user's git config) and a UTF-8 locale,
 * never a prompt (GIT_TERMINAL_PROMPT=0) and stdin closed. Only `spawn --worktree` and its `kill` use it.
 */
export function createGit(hostEnv: Readonly<Record<string, string | undefined>>): GitPort {
  const env: Record<string, string> = {
    PATH: hostEnv.PATH ?? "/usr/local/bin:/usr/bin:/bin",
    LANG: "C.UTF-8",
    GIT_TERMINAL_PROMPT: "0",
  };
  if (hostEnv.HOME) env.HOME = hostEnv.HOME;

  async function git(
    dir: string,
    args: readonly string[],
  ): Promise<{ code: number; out: string; err: string }> {
    const argv = ["git", "-C", dir, ...args];
    const result = await runProcess(argv, { env, timeoutMs: GIT_TIMEOUT_MS }).catch((error: unknown) => {
      // Not installed: a ProgramMissingError with the fix (exit 127), not a git failure.
      if (error instanceof ProgramMissingError) throw error;
      throw new GitError(`git could not be run: ${error instanceof Error ? error.message : String(error)}`, {
        argv,
      });
    });
    if (result.timedOut)
      throw new GitError(`git ${args[0]} did not finish within ${GIT_TIMEOUT_MS} ms`, { argv });
    return { code: result.exitCode ?? -1, out: result.stdout.trim(), err: result.stderr.trim() };
  }

  async function must(dir: string, args: readonly string[]): Promise<string> {
    const r = await git(dir, args);
    if (r.code !== 0)
      throw new GitError(`git ${args.join(" ")} failed: ${r.err || `exit ${r.code}`}`, {
        argv: ["git", "-C", dir, ...args],
        exitCode: r.code,
        stderr: r.err,
      });
    return r.out;
  }

  return {
    async toplevel(dir) {
      const r = await git(dir, ["rev-parse", "--show-toplevel"]);
      return r.code === 0 && r.out !== "" ? r.out : null;
    },
    async head(repo) {
      const branch = await git(repo, ["symbolic-ref", "--short", "-q", "HEAD"]);
      if (branch.code === 0 && branch.out !== "") return branch.out;
      return must(repo, ["rev-parse", "--verify", "HEAD"]);
    },
    async addWorktree(repo, path, branch, base) {
      await must(repo, ["worktree", "add", "-b", branch, path, base]);
    },
    async isDirty(path) {
      const r = await git(path, ["status", "--porcelain", "--untracked-files=all"]);
      if (r.code !== 0) return null;
      return r.out !== "";
    },
    async isMerged(repo, branch, base) {
      const known = await git(repo, ["rev-parse", "--verify", "-q", `${base}^{commit}`]);
      if (known.code !== 0) return true;
      const r = await git(repo, ["merge-base", "--is-ancestor", branch, base]);
      return r.code === 0;
    },
    async removeWorktree(repo, path, force) {
      await must(repo, ["worktree", "remove", ...(force ? ["--force"] : []), path]);
    },
    async deleteBranch(repo, branch) {
      await must(repo, ["branch", "-D", branch]);
    },
    async worktreeHead(path) {
      const commit = await git(path, ["rev-parse", "--verify", "-q", "HEAD"]);
      if (commit.code !== 0 || commit.out === "") return null;
      const ref = await git(path, ["symbolic-ref", "-q", "HEAD"]);
      const branch =
        ref.code === 0 && ref.out.startsWith("refs/heads/") ? ref.out.slice("refs/heads/".length) : null;
      return { commit: commit.out, branch };
    },
    async refsContaining(repo, commit) {
      const out = await must(repo, ["for-each-ref", "--contains", commit, "--format=%(refname)"]);
      return out.split("\n").filter((line) => line !== "");
    },
    async hasBranch(repo, branch) {
      return (await git(repo, ["rev-parse", "--verify", "-q", `refs/heads/${branch}`])).code === 0;
    },
    async createBranch(repo, branch, commit) {
      await must(repo, ["branch", branch, commit]);
    },
    async ignoredPaths(path) {
      // -z: names as they are (no C quoting of unusual bytes); --directory: an ignored folder once.
      const out = await must(path, [
        "ls-files",
        "-z",
        "--others",
        "--ignored",
        "--exclude-standard",
        "--directory",
      ]);
      return out
        .split("\0")
        .filter((name) => name !== "")
        .sort();
    },
  };
}
