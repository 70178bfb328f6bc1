import { renderEnvelope, sshArgv, verbCommand } from "../../core/hosts/command.ts";
import { type HostPlan, planHost } from "../../core/hosts/plan.ts";
import { readReply } from "../../core/hosts/reply.ts";
import type { Deps } from "../../core/ports.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/** One verb for a host's umbel: its name there, its input in wire form (core/hosts/command.ts toWire). */
export type RemoteCall = {
  readonly host: string;
  readonly verb: string;
  readonly input: Readonly<Record<string, unknown>>;
  /** The whole call's bound: the verb's own (a wait's timeout) plus the link's margin. */
  readonly boundMs: number;
};

/**
 * Runs one verb on a host (docs/hosts.md): `umbel VERB --stdin-json --json` over ssh, the input on
 * its stdin. Returns the remote's JSON result and exit code; a host that does not answer is a
 * HostUnreachableError, an error the remote reported is its typed error here (core/hosts/reply.ts).
 * Nothing is written under this state root but the master connection's socket.
 */
export async function relayVerb(deps: Deps, call: RemoteCall): Promise<{ value: unknown; exitCode: number }> {
  return callHost(deps, await loadHost(deps, call.host), call);
}

/** relayVerb on a host already planned (the fleet view plans every host from one read of config.toml). */
export async function callHost(
  deps: Deps,
  plan: HostPlan,
  call: RemoteCall,
): Promise<{ value: unknown; exitCode: number }> {
  const argv = sshArgv({ ...plan, command: verbCommand(plan.umbel, call.verb) });
  deps.trace.mark(`ssh ${call.host} ${call.verb}`);
  const run = await deps.ssh.run(argv, {
    input: renderEnvelope({ ...call.input }),
    timeoutMs: call.boundMs,
    controlDir: plan.controlDir,
    signal: deps.signal,
  });
  deps.trace.mark(`ssh ${call.host} ${call.verb}: exit ${run.exitCode} in ${run.durationMs} ms`);
  return readReply(call.host, run, call.boundMs);
}

/** The host of config.toml named (an unknown one is a usage error). */
export async function loadHost(deps: Deps, name: string): Promise<HostPlan> {
  const { config } = await loadUserConfig(deps);
  return planHost(config.hosts, name, deps.env, deps.store.root);
}
