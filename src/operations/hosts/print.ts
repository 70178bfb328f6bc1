import { type RemotePrint, remoteCommand, renderEnvelope, sshArgv } from "../../core/hosts/command.ts";
import { readPrintReply } from "../../core/hosts/reply.ts";
import type { Deps } from "../../core/ports.ts";
import { loadHost } from "./relay.ts";

/**
 * `umbel -p --host box …` (docs/hosts.md): the whole -p runs on the host, its worker there, started
 * and removed there as a local -p's is here. One ssh runs `umbel -p --stdin-json`; the argv (the
 * prompt with it) and stdin travel in the envelope on ssh's stdin, so no prompt is on a command
 * line. Its stdout is -p's own, handed to `out` as it arrives (stream-json's lines as the turn goes);
 * its stderr and exit code once it ends.
 */
export async function printOnHost(
  deps: Deps,
  call: RemotePrint & { readonly host: string; readonly boundMs: number },
  out: (chunk: string) => void,
): Promise<{ stderr: string; exitCode: number }> {
  const plan = await loadHost(deps, call.host);
  const { face, argv, stdin, stdinIsTty } = call;
  const what = face === "exec" ? "exec" : "-p";
  deps.trace.mark(`ssh ${call.host} ${what}`);
  let wrote = false;
  const run = await deps.ssh.stream(
    sshArgv({ ...plan, command: remoteCommand(plan.umbel, ["-p", "--stdin-json"]) }),
    {
      input: renderEnvelope({ ...(face ? { face } : {}), argv, stdin, stdinIsTty } satisfies RemotePrint),
      timeoutMs: call.boundMs,
      controlDir: plan.controlDir,
      signal: deps.signal,
      onStdout: (chunk) => {
        wrote = true;
        out(chunk);
      },
    },
  );
  deps.trace.mark(`ssh ${call.host} ${what}: exit ${run.exitCode} in ${run.durationMs} ms`);
  return readPrintReply(call.host, run, call.boundMs, wrote);
}
