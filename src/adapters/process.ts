import { clampTimerMs } from "../core/duration.ts";

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
 * it is killed and the result says `timedOut`, so a hung child never hangs umbel.
 */
export async function runProcess(argv: readonly string[], options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const child = Bun.spawn([...argv], {
    env: { ...options.env },
    ...(options.cwd ? { cwd: options.cwd } : {}),
    stdin: options.input === undefined ? "ignore" : new Blob([options.input]),
    stdout: "pipe",
    stderr: "pipe",
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    child.kill("SIGKILL");
  }, clampTimerMs(options.timeoutMs)); // past 2^31-1 ms it would fire at once and kill the child
  try {
    const [stdout, stderr] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
    ]);
    await child.exited;
    return {
      exitCode: child.exitCode,
      signal: child.signalCode === null ? null : String(child.signalCode),
      stdout,
      stderr,
      durationMs: Math.round(performance.now() - started),
      timedOut,
    };
  } finally {
    clearTimeout(timer);
  }
}
