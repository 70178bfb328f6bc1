import { closeSync, openSync } from "node:fs";
import { open } from "node:fs/promises";
import { OUTPUT_TAIL_BYTES } from "../core/guard/decide.ts";
import type { CheckRun } from "../core/guard/record.ts";
import type { CheckOptions } from "../core/ports.ts";
import { asFileFault } from "./files.ts";
import { holdChild, killGroup, startProgram } from "./process.ts";

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
