import { AbortedError, HostUnreachableError, UmbelError } from "../../core/errors.ts";
import type { HostPlan } from "../../core/hosts/plan.ts";
import { HOSTS_BOUND_MS, planHosts } from "../../core/hosts/plan.ts";
import { formatWorkerRef, type HostDown } from "../../core/hosts/schema.ts";
import type { Deps } from "../../core/ports.ts";
import { FleetStatus, type StatusResult } from "../../core/worker/status.ts";
import { listWorkers } from "../worker/status.ts";
import { loadUserConfig } from "../worker/user-config.ts";
import { callHost } from "./relay.ts";

/**
 * The fleet view (`ls`, `status` without a name): this machine's workers, then every host's, all
 * asked at once and each bounded as `umbel hosts` bounds them (HOSTS_BOUND_MS). A host that gives no
 * workers is one HostDown entry with its reason; only this machine's own listing can fail the call.
 * With no host declared it is the local listing and one read of config.toml (beside it, not after).
 */
export async function listFleet(deps: Deps, input: { local?: boolean | undefined }): Promise<FleetStatus> {
  if (input.local) return { workers: await listWorkers(deps) };
  const [local, { config }] = await Promise.all([listWorkers(deps), loadUserConfig(deps)]);
  const plans = planHosts(config.hosts, deps.env, deps.store.root);
  if (plans.length === 0) return { workers: local };
  const answers = await Promise.all(plans.map((plan) => askHost(deps, plan)));
  const down = answers.flatMap((a) => ("state" in a ? [a] : []));
  return {
    workers: [
      ...local.map((w) => ({ ...w, host: null })),
      ...answers.flatMap((a) => ("state" in a ? [] : a.workers)),
    ],
    hosts: plans.map((p) => p.name),
    ...(down.length > 0 ? { unreachable: down } : {}),
  };
}

/** One host's workers as HOST:NAME, or why it gave none. A Ctrl-C ends the whole view, never a row. */
async function askHost(deps: Deps, plan: HostPlan): Promise<{ workers: StatusResult[] } | HostDown> {
  const host = plan.name;
  try {
    // local: the host lists its own workers only (one hop; its --stdin-json enforces it too).
    const { value } = await callHost(deps, plan, {
      host,
      verb: "ls",
      input: { local: true },
      boundMs: HOSTS_BOUND_MS,
    });
    const rows = FleetStatus.shape.workers.safeParse(value);
    if (!rows.success)
      return {
        host,
        state: "host-error",
        code: "remote-failure",
        reason: `host ${host}: its umbel's ls answer is not this umbel's shape: install the same umbel on both`,
      };
    return { workers: rows.data.map((w) => ({ ...w, name: formatWorkerRef(host, w.name), host })) };
  } catch (error) {
    if (error instanceof AbortedError || !(error instanceof UmbelError)) throw error;
    const state = error instanceof HostUnreachableError ? "unreachable" : "host-error";
    return { host, state, code: error.code, reason: error.message };
  }
}
