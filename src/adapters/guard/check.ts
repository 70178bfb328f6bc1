import { readdir, readFile } from "node:fs/promises";
import { CHECK_LOG_KEEP_BYTES } from "../../core/common/log-bounds.ts";
import { OUTPUT_TAIL_BYTES } from "../../core/guard/decide.ts";
import type { CheckRun } from "../../core/guard/record.ts";
import type { CheckOptions, CheckProcess } from "../../core/ports.ts";
import { type BoundedLog, openBoundedLog } from "../bounded-log.ts";
import { holdChild, killGroup, startProgram } from "../process.ts";
import { processStart } from "../process-start.ts";

/**
 * An accept check: `sh -c COMMAND` with stdin closed and stdout and stderr on one pipe (`exec 2>&1`
 * first, so the log keeps their order), leading its own process group (`detached`: setsid), which is
 * killed at the timeout, on abort, or when umbel exits — a test runner's children die with it. Its
 * log is bounded (adapters/bounded-log.ts: the first and last CHECK_LOG_KEEP_BYTES, the cut said).
 */
export async function runCheck(command: string, options: CheckOptions): Promise<CheckRun> {
  const started = performance.now();
  const log = openBoundedLog(options.logPath, CHECK_LOG_KEEP_BYTES, "check");
  let child: ReturnType<typeof Bun.spawn>;
  const argv = ["sh", "-c", `exec 2>&1; ${command}`];
  try {
    child = startProgram(argv, () =>
      Bun.spawn(argv, {
        cwd: options.cwd,
        env: { ...options.env },
        stdin: "ignore",
        stdout: "pipe",
        stderr: "ignore",
        detached: true,
      }),
    );
  } catch (error) {
    log.close();
    throw error;
  }
  const release = holdChild(child.pid);
  if (options.onStart) {
    try {
      await options.onStart({ pid: child.pid, start: await processStart(child.pid) });
    } catch (error) {
      killGroup(child.pid);
      release();
      log.close();
      throw error;
    }
  }
  const output = follow(child.stdout as ReadableStream<Uint8Array>, log);
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
  // A process that left the group may hold the pipe open: its output is not waited for past this.
  const recent = await output.stop(DRAIN_MS);
  const { bytes, cut } = log.close();
  return {
    command,
    exitCode: timedOut ? null : child.exitCode,
    signal: timedOut ? "SIGKILL" : child.signalCode === null ? null : String(child.signalCode),
    timedOut,
    durationMs: Math.round(performance.now() - started),
    output: new TextDecoder().decode(recent).replace(/^\uFFFD+/, ""),
    outputBytes: bytes,
    ...(cut > 0 ? { cutBytes: cut } : {}),
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

const DRAIN_MS = 1000;

/** Copies the pipe into the log as it comes, keeping its last OUTPUT_TAIL_BYTES for the record. */
function follow(stream: ReadableStream<Uint8Array>, log: BoundedLog) {
  const reader = stream.getReader();
  let recent = new Uint8Array(0);
  let stopped = false;
  const done = (async () => {
    for (;;) {
      const chunk = await reader.read().catch(() => ({ done: true as const, value: undefined }));
      if (chunk.done || stopped) return;
      log.write(chunk.value);
      const joined = new Uint8Array(Math.min(OUTPUT_TAIL_BYTES, recent.length + chunk.value.length));
      const fromChunk = Math.min(chunk.value.length, joined.length);
      joined.set(recent.subarray(recent.length - (joined.length - fromChunk)), 0);
      joined.set(chunk.value.subarray(chunk.value.length - fromChunk), joined.length - fromChunk);
      recent = joined;
    }
  })();
  return {
    async stop(boundMs: number): Promise<Uint8Array> {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, boundMs);
      });
      await Promise.race([done, late]);
      clearTimeout(timer);
      stopped = true;
      await reader.cancel().catch(() => undefined);
      return recent;
    },
  };
}
