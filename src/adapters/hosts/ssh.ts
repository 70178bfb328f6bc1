import { chmod, mkdir } from "node:fs/promises";
import type { SshRun } from "../../core/hosts/reply.ts";
import type { SshPort } from "../../core/ports.ts";
import { type RunResult, runOnTerminal, runPiped, runProcess } from "../process.ts";

/**
 * The real ssh: the process port's bounded run (its whole process group killed past the bound), in
 * umbel's own environment (ssh needs SSH_AUTH_SOCK, and its options come from argv). The control
 * sockets' folder is 0700: a master connection is a live login on the host to whoever can reach it.
 */
export function createSsh(env: Readonly<Record<string, string | undefined>>): SshPort {
  const clean = Object.fromEntries(
    Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
  );
  const controls = async (dir: string) => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  };
  return {
    async run(argv, { input, inputFile, timeoutMs, controlDir, signal }): Promise<SshRun> {
      await controls(controlDir);
      // A verb's envelope: stdin stays open while it runs, so its remote end sees EOF if this one dies.
      // A file (hosts install's binary) ends in EOF: the remote `cat` reads it to its end.
      return sshRun(
        await runProcess(argv, {
          env: clean,
          input,
          inputFile,
          timeoutMs,
          signal,
          holdStdin: inputFile === undefined && input !== "",
        }),
      );
    },
    async stream(argv, { input, timeoutMs, controlDir, signal, onStdout }): Promise<SshRun> {
      await controls(controlDir);
      return sshRun(
        await runProcess(argv, { env: clean, input, timeoutMs, signal, holdStdin: input !== "", onStdout }),
      );
    },
    async interactive(argv, { controlDir, signal }): Promise<number> {
      await controls(controlDir);
      return runOnTerminal(argv, clean, signal);
    },
    async pipe(argv, { controlDir, signal }) {
      await controls(controlDir);
      return runPiped(argv, clean, signal);
    },
  };
}

function sshRun(run: RunResult): SshRun {
  return {
    exitCode: run.exitCode,
    stdout: run.stdout,
    stderr: run.stderr,
    timedOut: run.timedOut,
    durationMs: run.durationMs,
    aborted: run.aborted,
  };
}
