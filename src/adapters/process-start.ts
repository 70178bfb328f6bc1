import { readFile } from "node:fs/promises";
import { runProcess } from "./process.ts";

/**
 * When a process started, as a token that tells a reused pid apart: Linux's /proc/<pid>/stat field
 * 22 (start time in clock ticks since boot), else `ps -o lstart=` (macOS). null: no such process.
 */
export async function processStart(pid: number): Promise<string | null> {
  if (!Number.isInteger(pid) || pid <= 0) return null;
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
  if (stat !== null) {
    // The command name (field 2) is in parentheses and may hold spaces: count from its end.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  }
  const ps = await runProcess(["ps", "-o", "lstart=", "-p", String(pid)], {
    env: { PATH: "/bin:/usr/bin" },
    timeoutMs: 2000,
  }).catch(() => null);
  const start = ps?.exitCode === 0 ? ps.stdout.trim() : "";
  return start === "" ? null : start;
}
