import { closeSync, openSync } from "node:fs";
import { clampTimerMs } from "../core/duration.ts";
import { missingProgram } from "../core/programs.ts";

export type RunResult = {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  readonly timedOut: boolean;
};

export type RunOptions = {
  readonly env: Readonly<Record<string, string>>;
  readonly input?: string | undefined;
  readonly timeoutMs: number;
  readonly cwd?: string | undefined;
};

/**
 * Runs a program to completion with stdin closed (or fed `input`), bounded in time: past the bound
 * its whole process group is killed, its pipes are no longer read (what they held is dropped) and
 * the result says `timedOut`, so a hung child never hangs umbel.
 *
 * Killing the child alone was not enough: a hung `tmux` wrapper whose `sleep` outlived it kept the
 * stdout pipe open, and `umbel ls` with a 2 s bound was still waiting for EOF after 25 s. So the
 * child leads its own process group (`detached`: setsid in Bun 1.4.5) and the bound kills the group.
 */
export async function runProcess(argv: readonly string[], options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const child = startProgram(argv, () =>
    Bun.spawn([...argv], {
      env: { ...options.env },
      ...(options.cwd ? { cwd: options.cwd } : {}),
      stdin: options.input === undefined ? "ignore" : new Blob([options.input]),
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    }),
  );
  const release = holdChild(child.pid);
  let timedOut = false;
  let onBound = () => {};
  const bound = new Promise<void>((resolve) => {
    onBound = resolve;
  });
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup(child.pid);
    onBound();
  }, clampTimerMs(options.timeoutMs)); // past 2^31-1 ms it would fire at once and kill the child
  try {
    const [stdout, stderr] = await Promise.all([
      readUntil(child.stdout, bound),
      readUntil(child.stderr, bound),
      Promise.race([child.exited, bound]),
    ]);
    return {
      exitCode: timedOut ? null : child.exitCode,
      signal: timedOut ? "SIGKILL" : child.signalCode === null ? null : String(child.signalCode),
      stdout,
      stderr,
      durationMs: Math.round(performance.now() - started),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
    release();
  }
}

/**
 * `start()` (a Bun.spawn of `argv`), with a program that cannot be started — not on PATH (ENOENT,
 * Bun's `Executable not found in $PATH`), not executable (EACCES) — as a ProgramMissingError naming
 * it and its fix, never an internal error. Every program umbel runs is started through this.
 */
export function startProgram<T>(argv: readonly string[], start: () => T): T {
  try {
    return start();
  } catch (error) {
    const errno = (error as { code?: unknown }).code;
    if (errno !== "ENOENT" && errno !== "EACCES") throw error;
    throw Object.assign(missingProgram(argv[0] ?? "", process.platform, errno), { cause: error });
  }
}

/**
 * Children still running. In their own groups they no longer get the terminal's Ctrl-C, and a verb
 * that returns at its own deadline (wait) exits with a hung tmux call still in flight: without this
 * the call's `sleep` outlived umbel (measured: 5 hung tmux calls left by one run of tmux-hang.test.ts).
 */
const running = new Set<number>();
let exitHooked = false;

function killRunning(): void {
  for (const pid of running) killGroup(pid);
}

/** Kills the group of this child (started detached) if umbel exits first; call the result once it ended. */
export function holdChild(pid: number): () => void {
  running.add(pid);
  if (!exitHooked) {
    process.on("exit", killRunning);
    exitHooked = true;
  }
  return () => void running.delete(pid);
}

/** SIGKILL to the group the child leads (it and everything it started that stayed in it). */
export function killGroup(pid: number): void {
  try {
    process.kill(-pid, "SIGKILL");
  } catch {
    // ESRCH: the group is already gone. The child itself too, in case it left its group.
  }
  try {
    process.kill(pid, "SIGKILL");
  } catch {}
}

/** The stream's text up to EOF, or up to `stop` (then the read is cancelled: a process outside the group may hold the pipe). */
async function readUntil(stream: ReadableStream<Uint8Array>, stop: Promise<void>): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const stopped = stop.then(() => null);
  let text = "";
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), stopped]);
      if (chunk === null || chunk.done) break;
      text += decoder.decode(chunk.value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return text + decoder.decode();
}

/**
 * Starts a process that outlives this one: its own session (a terminal's hang-up or Ctrl-C of this
 * process does not reach it), stdin closed, output appended to `log` (0600). Not waited for.
 */
export function startDetached(
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  log: string,
): void {
  const fd = openSync(log, "a", 0o600);
  try {
    Bun.spawn([...argv], {
      env: { ...env },
      stdin: "ignore",
      stdout: fd,
      stderr: fd,
      detached: true,
    }).unref();
  } finally {
    closeSync(fd);
  }
}
