import { closeSync, openSync } from "node:fs";
import { open, readdir, readFile } from "node:fs/promises";
import { OUTPUT_TAIL_BYTES } from "../core/guard/decide.ts";
import type { CheckRun } from "../core/guard/record.ts";
import type { CheckOptions, CheckProcess } from "../core/ports.ts";
import { asFileFault } from "./files.ts";
import { holdChild, killGroup, startProgram } from "./process.ts";
import { processStart } from "./process-start.ts";

/**
 * An accept check: `sh -c COMMAND` with stdin closed and stdout and stderr on one file (so the log
 * keeps their order), leading its own process group (`detached`: setsid), which is killed at the
 * timeout, on abort, or when umbel exits — a test runner's children die with it.
 */
export async function runCheck(command: string, options: CheckOptions): Promise<CheckRun> {
  const started = performance.now();
  let fd: number;
  try {
    fd = openSync(options.logPath, "w", 0o600);
  } catch (error) {
    throw asFileFault(error, options.logPath, "write");
  }
  let child: ReturnType<typeof Bun.spawn>;
  try {
    const argv = ["sh", "-c", command];
    child = startProgram(argv, () =>
      Bun.spawn(argv, {
        cwd: options.cwd,
        env: { ...options.env },
        stdin: "ignore",
        stdout: fd,
        stderr: fd,
        detached: true,
      }),
    );
  } finally {
    closeSync(fd);
  }
  const release = holdChild(child.pid);
  if (options.onStart) {
    try {
      await options.onStart({ pid: child.pid, start: await processStart(child.pid) });
    } catch (error) {
      killGroup(child.pid);
      release();
      throw error;
    }
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
  }, options.timeoutMs);
  const abort = () => killGroup(child.pid);
  options.signal?.addEventListener("abort", abort, { once: true });
  try {
    await child.exited;
    // The shell may be gone while what it started still runs in its group: end those too (the
    // group, not the pid: the shell is reaped and its pid may be reused).
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", abort);
    release();
  }
  return {
    command,
    exitCode: timedOut ? null : child.exitCode,
    signal: timedOut ? "SIGKILL" : child.signalCode === null ? null : String(child.signalCode),
    timedOut,
    durationMs: Math.round(performance.now() - started),
    output: await readTail(options.logPath, OUTPUT_TAIL_BYTES),
  };
}

/** How long an ended check's group may take to go (SIGKILL is immediate but for a process in D state). */
const END_WAIT_MS = 2000;

/**
 * Ends a check a waiter that died left running: SIGKILL to its group, unless its pid now names
 * another process (then the group is long gone: a pid is not reused while its group lives), then
 * waits for the group to go. A leader already gone with members left in its group is ended too.
 */
export async function endCheck(proc: CheckProcess): Promise<void> {
  const start = await processStart(proc.pid);
  if (start !== null && proc.start !== null && start !== proc.start) return;
  killGroup(proc.pid);
  const until = Date.now() + END_WAIT_MS;
  while ((await isGroupAlive(proc.pid)) && Date.now() < until) await Bun.sleep(20);
}

/**
 * Whether any process of the group still runs. An orphan's processes are the init process's to
 * reap, which may take its time: a zombie runs nothing, so on Linux the group's members are read
 * from /proc and zombies are not counted (kill(2) counts them).
 */
async function isGroupAlive(pgid: number): Promise<boolean> {
  const pids = await readdir("/proc").catch(() => null);
  if (pids === null) {
    try {
      process.kill(-pgid, 0);
      return true;
    } catch (error) {
      return (error as { code?: string }).code === "EPERM";
    }
  }
  for (const pid of pids) {
    if (!/^\d+$/.test(pid)) continue;
    const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => null);
    // Fields after the command name (which may hold spaces): state is the first, pgrp the third.
    const fields = stat?.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (fields && fields[2] === String(pgid) && fields[0] !== "Z") return true;
  }
  return false;
}

/** The last `bytes` of a file as text (a character cut in half at the start is dropped). */
async function readTail(path: string, bytes: number): Promise<string> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return new TextDecoder().decode(buffer).replace(/^\uFFFD+/, "");
  } finally {
    await handle.close();
  }
}
