import { type RemotePrint, remoteCommand, renderEnvelope, sshArgv } from "../../core/hosts/command.ts";
import { readPrintReply } from "../../core/hosts/reply.ts";
import type { Deps } from "../../core/ports.ts";
import { loadHost } from "./relay.ts";

/**
 * `umbel -p --host box …` (docs/hosts.md): the whole -p runs on the host, its worker there, started
 * and removed there as a local -p's is here. One ssh runs `umbel -p --stdin-json`; the argv (the
 * prompt with it) and stdin travel in the envelope on ssh's stdin, so no prompt is on a command
 * line. Its output is -p's own, given back as it came once -p ends (not streamed as it runs).
 */
export async function printOnHost(
  deps: Deps,
  call: RemotePrint & { readonly host: string; readonly boundMs: number },
): Promise<{ stdout: string; stderr: string; exitCode: number }> {
  const plan = await loadHost(deps, call.host);
  const { argv, stdin, stdinIsTty } = call;
  deps.trace.mark(`ssh ${call.host} -p`);
  const run = await deps.ssh.run(
    sshArgv({ ...plan, command: remoteCommand(plan.umbel, ["-p", "--stdin-json"]) }),
    {
      input: renderEnvelope({ argv, stdin, stdinIsTty } satisfies RemotePrint),
      timeoutMs: call.boundMs,
      controlDir: plan.controlDir,
      signal: deps.signal,
    },
  );
  deps.trace.mark(`ssh ${call.host} -p: exit ${run.exitCode} in ${run.durationMs} ms`);
  return readPrintReply(call.host, run, call.boundMs);
}
