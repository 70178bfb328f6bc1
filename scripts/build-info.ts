// The commit a build embeds (`umbel --version`), shared by build.ts and release.ts.
import { spawnSync } from "node:child_process";

/**
 * `UMBEL_BUILD_COMMIT` when set (a CI building from a source archive knows its commit), else HEAD's
 * sha with `-dirty` when tracked files differ from it, else "unknown" (no git, or not a repository).
 */
export function readBuildCommit(repo: string, env: Readonly<Record<string, string | undefined>>): string {
  if (env.UMBEL_BUILD_COMMIT) return env.UMBEL_BUILD_COMMIT;
  const git = (args: string[]) => {
    const r = spawnSync("git", args, { cwd: repo, encoding: "utf8", env: { ...env } as NodeJS.ProcessEnv });
    return r.status === 0 ? r.stdout.trim() : null;
  };
  const sha = git(["rev-parse", "--verify", "HEAD"]);
  if (sha === null || !/^[0-9a-f]{40}$/.test(sha)) return "unknown";
  const changes = git(["status", "--porcelain", "--untracked-files=no"]);
  return changes ? `${sha}-dirty` : sha;
}

/** The `bun build` arguments that embed it (src/adapters/doctor/build-info.ts reads the constant). */
export function buildDefines(commit: string): string[] {
  return ["--define", `UMBEL_BUILD_COMMIT=${JSON.stringify(commit)}`];
}
