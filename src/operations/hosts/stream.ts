import { parseJson } from "../../core/common/json.ts";
import { HostUnreachableError, UsageError } from "../../core/errors.ts";
import { remoteCommand, renderEnvelope, sshArgv, verbCommand } from "../../core/hosts/command.ts";
import { splitLines } from "../../core/hosts/progress.ts";
import { readReply } from "../../core/hosts/reply.ts";
import type { Deps, SshPipe } from "../../core/ports.ts";
import { LogEntry } from "../../core/worker/outputs.ts";
import { loadHost } from "./relay.ts";

/**
 * The verbs on a host's worker that do not end in one answer (docs/hosts.md): `logs` (`-f`), whose
 * events come through as the host's umbel prints them, and `attach`, the host's pane on this
 * terminal through `ssh -t`. Neither keeps anything on this side.
 */

/** A remote `logs` without -f: what a relayed verb gets (it reads a log, then ends). */
const LOGS_BOUND_MS = 90_000;
/** ssh's own failures (it cannot connect, authenticate, or the link died). */
const SSH_FAILED = 255;

/**
 * `logs box:NAME [-f]`: one ssh running `umbel logs --stdin-json --json` there, each of its lines
 * (one event) handed to `emit` as it arrives. With follow it lasts as long as the worker there
 * (no bound of time: a dead link is ssh's keep-alive's to notice, ~30 s, then exit 69); the
 * signal (Ctrl-C) ends the ssh, and the host's logs sees its stdin close and stops.
 */
export async function logsOnHost(
  deps: Deps,
  call: { readonly host: string; readonly name: string; readonly follow?: boolean | undefined },
  emit: (entry: LogEntry) => void,
): Promise<void> {
  const plan = await loadHost(deps, call.host);
  const boundMs = call.follow ? Number.POSITIVE_INFINITY : LOGS_BOUND_MS;
  // The line that is no event: the remote's error, when it failed (read as readReply reads one).
  let other = "";
  const line = (text: string) => {
    if (text.trim() === "") return;
    const entry = LogEntry.safeParse(parseJson(text));
    if (entry.success) emit(entry.data);
    else other = text;
  };
  const lines = splitLines(line);
  deps.trace.mark(`ssh ${call.host} logs`);
  const run = await deps.ssh.stream(sshArgv({ ...plan, command: verbCommand(plan.umbel, "logs") }), {
    input: renderEnvelope({ name: call.name, ...(call.follow ? { follow: true } : {}) }),
    timeoutMs: boundMs,
    controlDir: plan.controlDir,
    signal: deps.signal,
    onStdout: lines.push,
  });
  lines.end();
  deps.trace.mark(`ssh ${call.host} logs: exit ${run.exitCode} in ${run.durationMs} ms`);
  const failed = run.aborted || run.timedOut || run.exitCode !== 0;
  if (failed) readReply(call.host, { ...run, stdout: other }, boundMs);
}

/**
 * `umbel acp --host box`: the host's own `umbel acp` on this process's stdio over `ssh -T` (no
 * terminal: the protocol's bytes pass untouched both ways), so the host's umbel owns the sessions'
 * workers as it owns every other. The face's flags are that command line's words; none is a secret
 * (spawnFlagWords refuses --env values). Returns the host's exit code.
 */
export async function acpOnHost(deps: Deps, host: string, words: readonly string[]): Promise<number> {
  const plan = await loadHost(deps, host);
  const argv = sshArgv({ ...plan, command: remoteCommand(plan.umbel, ["acp", ...words]), tty: false });
  deps.trace.mark(`ssh ${host} acp`);
  const code = await deps.ssh.interactive(argv, { controlDir: plan.controlDir, signal: deps.signal });
  if (code === SSH_FAILED)
    throw new HostUnreachableError(`host ${host} is unreachable (ssh exited 255; its reason is above)`, {
      host,
      reason: "ssh failed",
    });
  return code;
}

/**
 * A session of `umbel acp` on a host (session/new's `_meta.umbel.host`): the host's own `umbel acp`
 * over `ssh -T`, its stdio as streams this face speaks ACP over, as a client. The face's flags are
 * the words of that command line, as for acpOnHost.
 */
export async function pipeAcpOnHost(deps: Deps, host: string, words: readonly string[]): Promise<SshPipe> {
  const plan = await loadHost(deps, host);
  const argv = sshArgv({ ...plan, command: remoteCommand(plan.umbel, ["acp", ...words]), tty: false });
  deps.trace.mark(`ssh ${host} acp (a session's agent)`);
  return deps.ssh.pipe(argv, { controlDir: plan.controlDir, signal: deps.signal });
}

/**
 * `attach box:NAME`: `ssh -t DEST '<umbel> attach NAME'` on this terminal, the host's umbel
 * attaching there as it does locally (detach with C-b d). The name is on that command line (it is
 * no secret), quoted for the remote shell. Its exit code is the host's attach's; what the host's
 * umbel says on failure (no such worker there: exit 3) reaches this terminal as it wrote it.
 */
export async function attachOnHost(
  deps: Deps,
  call: { readonly host: string; readonly name: string; readonly terminal: boolean },
): Promise<number> {
  const plan = await loadHost(deps, call.host);
  if (!call.terminal) throw new UsageError("attach needs a terminal (stdin and stdout must be a TTY)");
  const argv = sshArgv({ ...plan, command: remoteCommand(plan.umbel, ["attach", call.name]), tty: true });
  deps.trace.mark(`ssh -t ${call.host} attach`);
  const code = await deps.ssh.interactive(argv, { controlDir: plan.controlDir, signal: deps.signal });
  deps.trace.mark(`ssh -t ${call.host} attach: exit ${code}`);
  if (code === SSH_FAILED)
    throw new HostUnreachableError(`host ${call.host} is unreachable (ssh exited 255; its reason is above)`, {
      host: call.host,
      reason: "ssh failed",
    });
  return code;
}
