import { closeSync, constants, lstatSync, openSync, renameSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { constants as osConstants } from "node:os";
import { clampTimerMs } from "../core/common/duration.ts";
import { ROTATE_LOG_BYTES } from "../core/common/log-bounds.ts";
import { missingProgram } from "../core/doctor/programs.ts";

export type RunResult = {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly durationMs: number;
  readonly timedOut: boolean;
  /** `signal` fired first: the group was killed as at the bound (a remote verb's Ctrl-C). */
  readonly aborted?: boolean;
};

export type RunOptions = {
  readonly env: Readonly<Record<string, string>>;
  readonly input?: string | undefined;
  /** stdin is this file (then EOF), instead of `input`. */
  readonly inputFile?: string | undefined;
  readonly timeoutMs: number;
  readonly cwd?: string | undefined;
  /** Ends the run early, as the bound does. */
  readonly signal?: AbortSignal | undefined;
  /** Keep stdin open after `input` until the program ends (its EOF tells it the caller is gone). */
  readonly holdStdin?: boolean | undefined;
  /** Each piece of stdout as it arrives (decoded, whole characters), instead of in the result. */
  readonly onStdout?: ((chunk: string) => void) | undefined;
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
      stdin:
        options.inputFile !== undefined
          ? Bun.file(options.inputFile)
          : options.input === undefined
            ? "ignore"
            : options.holdStdin
              ? "pipe"
              : new Blob([options.input]),
      stdout: "pipe",
      stderr: "pipe",
      detached: true,
    }),
  );
  const release = holdChild(child.pid);
  const held = options.holdStdin && options.input !== undefined ? child.stdin : undefined;
  if (held && typeof held === "object") {
    // A program may end before it reads its input (an ssh that cannot connect exits 255 at once):
    // the write's EPIPE, now or later, is that news, and its exit code says the rest (seen: `status`
    // over a refused host ended in an internal error, an unhandled EPIPE, in the hosts e2e).
    const ignore = () => undefined;
    try {
      void Promise.resolve(held.write(options.input ?? "")).catch(ignore);
      void Promise.resolve(held.flush()).catch(ignore);
    } catch {
      // EPIPE at once: the same news.
    }
  }
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
  let aborted = false;
  const onAbort = () => {
    aborted = true;
    killGroup(child.pid);
    onBound();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    const [stdout, stderr] = await Promise.all([
      readUntil(child.stdout, bound, options.onStdout),
      readUntil(child.stderr, bound),
      Promise.race([child.exited, bound]),
    ]);
    const killed = timedOut || aborted;
    return {
      exitCode: killed ? null : child.exitCode,
      signal: killed ? "SIGKILL" : child.signalCode === null ? null : String(child.signalCode),
      stdout,
      stderr,
      durationMs: Math.round(performance.now() - started),
      timedOut,
      ...(aborted ? { aborted } : {}),
    };
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
    if (held && typeof held === "object") await Promise.resolve(held.end()).catch(() => undefined);
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

/**
 * The stream's text up to EOF, or up to `stop` (then the read is cancelled: a process outside the
 * group may hold the pipe). With `sink`, each piece goes there as it comes and none is kept.
 */
async function readUntil(
  stream: ReadableStream<Uint8Array>,
  stop: Promise<void>,
  sink?: (chunk: string) => void,
): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const stopped = stop.then(() => null);
  let text = "";
  try {
    for (;;) {
      const chunk = await Promise.race([reader.read(), stopped]);
      if (chunk === null || chunk.done) break;
      const piece = decoder.decode(chunk.value, { stream: true });
      if (sink) {
        if (piece) sink(piece);
      } else text += piece;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const last = decoder.decode();
  if (!sink) return text + last;
  if (last) sink(last);
  return "";
}

/**
 * The program on this process's terminal (all three streams inherited, `env` its whole environment),
 * waited for: its exit status, or 128+N for signal N as a shell reports it. Not in `running`: it is
 * the person's, and a Ctrl-C they type reaches it as it reaches umbel (main's first one only aborts).
 */
export async function runOnTerminal(
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  abort?: AbortSignal,
): Promise<number> {
  const child = startProgram(argv, () =>
    Bun.spawn([...argv], { env: { ...env }, stdio: ["inherit", "inherit", "inherit"] }),
  );
  // `abort` (main's clean stop: a hang-up, a SIGTERM) ends it as a bound ends a run.
  const onAbort = () => child.kill("SIGKILL");
  if (abort?.aborted) onAbort();
  else abort?.addEventListener("abort", onAbort, { once: true });
  const code = await child.exited.finally(() => abort?.removeEventListener("abort", onAbort));
  const signal = child.signalCode;
  return signal ? 128 + (osConstants.signals[signal as keyof typeof osConstants.signals] ?? 0) : code;
}

/**
 * A process this one speaks to over its stdin and stdout (stderr inherited): its streams and its
 * exit status. Closing `stdin` sends EOF; the signal kills it.
 */
export function runPiped(
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  abort?: AbortSignal,
): { stdin: WritableStream<Uint8Array>; stdout: ReadableStream<Uint8Array>; exited: Promise<number> } {
  const child = startProgram(argv, () =>
    Bun.spawn([...argv], { env: { ...env }, stdio: ["pipe", "pipe", "inherit"] }),
  );
  const onAbort = () => child.kill("SIGKILL");
  if (abort?.aborted) onAbort();
  else abort?.addEventListener("abort", onAbort, { once: true });
  const stdin = new WritableStream<Uint8Array>({
    write: async (chunk) => {
      child.stdin.write(chunk);
      await child.stdin.flush();
    },
    close: async () => {
      await child.stdin.end();
    },
    abort: async () => {
      await child.stdin.end();
    },
  });
  const exited = child.exited
    .finally(() => abort?.removeEventListener("abort", onAbort))
    .then((code) => {
      const signal = child.signalCode;
      return signal ? 128 + (osConstants.signals[signal as keyof typeof osConstants.signals] ?? 0) : code;
    });
  return { stdin, stdout: child.stdout, exited };
}

/**
 * Starts a process that outlives this one: its own session (a terminal's hang-up or Ctrl-C of this
 * process does not reach it), stdin closed, output appended to `log` (0600). Not waited for. The log
 * is bounded: past ROTATE_LOG_BYTES it is first moved to `<log>.1` (replacing the older one). A link
 * where it goes (or anything but a file umbel can append to) is never written through: the process
 * still starts, its output dropped, since the log is only the record of what it said.
 */
export function startDetached(
  argv: readonly string[],
  env: Readonly<Record<string, string>>,
  log: string,
): void {
  const fd = openLog(log);
  try {
    Bun.spawn([...argv], {
      env: { ...env },
      stdin: "ignore",
      stdout: fd ?? "ignore",
      stderr: fd ?? "ignore",
      detached: true,
    }).unref();
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function openLog(log: string): number | null {
  try {
    const info = lstatSync(log, { throwIfNoEntry: false });
    if (info?.isFile() && info.size > ROTATE_LOG_BYTES) renameSync(log, `${log}.1`);
    return openSync(
      log,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW,
      0o600,
    );
  } catch {
    return null;
  }
}

/**
 * Ends a process group that `pid` leads (a --notify command started under setsid), or, where it
 * leads none (no setsid on the machine), `pid` and every process below it (`ps`'s parent links) —
 * only when `pid`'s argv holds `mark` (a pid reused by another process is left alone).
 */
export async function killTree(pid: number, mark: string): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 1) return false;
  if (!(await commandLine(pid))?.includes(mark)) return false;
  try {
    process.kill(-pid, "SIGKILL");
    return true;
  } catch {
    // ESRCH: no group of that id; the process alone, and its children, below.
  }
  const ps = await runProcess(["ps", "-A", "-o", "pid=", "-o", "ppid="], {
    env: { PATH: "/bin:/usr/bin" },
    timeoutMs: 2000,
  }).catch(() => null);
  const children = new Map<number, number[]>();
  for (const line of ps?.stdout.split("\n") ?? []) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined || Number.isNaN(child)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const doomed: number[] = [];
  for (let queue = [pid]; queue.length > 0; ) {
    const next = queue.shift() as number;
    doomed.push(next);
    queue = [...queue, ...(children.get(next) ?? [])];
  }
  for (const p of doomed)
    try {
      process.kill(p, "SIGKILL");
    } catch {}
  return true;
}

/** A process's argv as one line: Linux's /proc (the image has no ps), else `ps` (macOS). */
async function commandLine(pid: number): Promise<string | null> {
  const proc = await readFile(`/proc/${pid}/cmdline`, "utf8").catch(() => null);
  if (proc !== null) return proc.split("\0").join(" ");
  const ps = await runProcess(["ps", "-ww", "-o", "args=", "-p", String(pid)], {
    env: { PATH: "/bin:/usr/bin" },
    timeoutMs: 2000,
  }).catch(() => null);
  return ps?.exitCode === 0 ? ps.stdout : null;
}
