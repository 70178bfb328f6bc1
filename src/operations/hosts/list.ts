import { sshArgv } from "../../core/hosts/command.ts";
import { HOSTS_BOUND_MS, planHosts } from "../../core/hosts/plan.ts";
import { type HostRow, type HostsResult, probeCommand, readProbe } from "../../core/hosts/probe.ts";
import type { Deps } from "../../core/ports.ts";
import { ProviderId } from "../../core/schemas.ts";
import { loadUserConfig } from "../worker/user-config.ts";

/** The bound of the round-trip ping that follows a host's probe (over the master the probe opened). */
const PING_BOUND_MS = 5_000;

/**
 * `umbel hosts`: every host of config.toml asked at once, each bounded: its probe (version, ls,
 * doctor in one call, which also opens the master connection), then one empty call over that master
 * for the round trip. A host that does not answer is a row that says so, never a hang.
 */
export async function listHosts(deps: Deps): Promise<HostsResult> {
  const { config } = await loadUserConfig(deps);
  const plans = planHosts(config.hosts, deps.env, deps.store.root);
  const hosts = await Promise.all(
    plans.map(async (plan): Promise<HostRow> => {
      const probe = await deps.ssh.run(sshArgv({ ...plan, command: probeCommand(plan.umbel) }), {
        input: "",
        timeoutMs: HOSTS_BOUND_MS,
        controlDir: plan.controlDir,
      });
      const row = readProbe(
        { name: plan.name, ssh: plan.destination },
        probe,
        HOSTS_BOUND_MS,
        ProviderId.options,
      );
      if (!row.reachable) return row;
      // `true`: the link's own round trip (a channel over the open master), not the remote umbel's start.
      const ping = await deps.ssh.run(sshArgv({ ...plan, command: "true" }), {
        input: "",
        timeoutMs: PING_BOUND_MS,
        controlDir: plan.controlDir,
      });
      return { ...row, rttMs: !ping.timedOut && ping.exitCode === 0 ? ping.durationMs : null };
    }),
  );
  return { hosts };
}
