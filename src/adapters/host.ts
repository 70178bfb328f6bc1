import { lstat, mkdtemp, readdir, rm, statfs } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { HostPort, PathStat, ProbeResult } from "../core/ports.ts";
import { isNotFound } from "./files.ts";
import { runProcess } from "./process.ts";
import { readTmuxVersion } from "./tmux.ts";

/** The machine as `umbel doctor` sees it (core/ports.ts HostPort). */
export function createHost(env: Readonly<Record<string, string | undefined>>): HostPort {
  return {
    platform: process.platform,
    arch: process.arch,
    isMusl,
    tmuxVersion: () => readTmuxVersion(env),
    probe: (argv, timeoutMs) => probe(argv, env.PATH ?? "/usr/bin:/bin", timeoutMs),
    stat: statOrNull,
    freeBytes,
  };
}

/**
 * A CLI's `--version` may write into its home (gemini 0.61.0 writes projects.json even then), so
 * it runs with a throwaway HOME and TMPDIR, nothing else of umbel's environment but PATH.
 */
async function probe(argv: readonly string[], path: string, timeoutMs: number): Promise<ProbeResult | null> {
  const home = await mkdtemp(join(tmpdir(), "umbel-probe-"));
  try {
    const r = await runProcess(argv, {
      env: { PATH: path, HOME: home, TMPDIR: home, LANG: "C.UTF-8" },
      cwd: home,
      timeoutMs,
    });
    return { exitCode: r.exitCode, output: `${r.stdout}${r.stderr}`, timedOut: r.timedOut };
  } catch {
    return null; // cannot be started (ENOENT, EACCES)
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

async function statOrNull(path: string): Promise<PathStat | null> {
  try {
    const s = await lstat(path);
    return { mode: s.mode & 0o7777, uid: s.uid, isDirectory: s.isDirectory() };
  } catch (error) {
    if (isNotFound(error)) return null;
    throw error;
  }
}

/** The filesystem of `path`, or of its nearest existing parent (a state root not made yet). */
async function freeBytes(path: string): Promise<number | null> {
  for (let at = path; ; at = dirname(at)) {
    try {
      const s = await statfs(at);
      return s.bavail * s.bsize;
    } catch (error) {
      if (!isNotFound(error) || dirname(at) === at) return null;
    }
  }
}

/** musl's loader, /lib/ld-musl-<arch>.so.1, is there (scripts/install.sh asks ldd first; no process here). */
async function isMusl(): Promise<boolean> {
  if (process.platform !== "linux") return false;
  try {
    return (await readdir("/lib")).some((f) => /^ld-musl-.*\.so\.1$/.test(f));
  } catch {
    return false;
  }
}
