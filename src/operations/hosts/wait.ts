import { AbortedError, HostUnreachableError, RemoteError } from "../../core/errors.ts";
import { LINK_MARGIN_MS, toWire } from "../../core/hosts/command.ts";
import { type HostPlan, planHost } from "../../core/hosts/plan.ts";
import type { WireProgress } from "../../core/hosts/progress.ts";
import { isProgressRefused } from "../../core/hosts/reply.ts";
import { formatWorkerRef, parseWorkerRef } from "../../core/hosts/schema.ts";
import type { Deps } from "../../core/ports.ts";
import { WaitInput } from "../../core/schemas.ts";
import { Outcome } from "../../core/wait/outcome.ts";
import type { GuardProgress } from "../guard/guard.ts";
import { DEFAULT_WAIT_TIMEOUT_MS } from "../wait/wait.ts";
import { loadUserConfig } from "../worker/user-config.ts";
import { callHost } from "./relay.ts";

/**
 * `wait` on a host's worker (docs/hosts.md): one remote `wait` over ssh. A link that drops under it
 * (ssh exits 255: the master died with the connection, the host rebooted) is no outcome of the turn:
 * the worker runs on, so the wait is called again, from the same baseline, with what is left of its
 * own timeout, after a backoff, until that deadline; a host gone past it is a HostUnreachableError
 * (exit 69) naming host and worker. Nothing here ever stops the remote worker.
 */

/** The first retry's backoff; each next one doubles it, to MAX_RETRY_MS. */
const FIRST_RETRY_MS = 500;
/** ssh's ConnectTimeout is 5 s: a try every 5 s at most keeps a host that comes back found within ~5 s. */
const MAX_RETRY_MS = 5_000;

export type RemoteWait = {
  readonly plan: HostPlan;
  /** The worker's name on the host. */
  readonly name: string;
  readonly after?: number | undefined;
  readonly timeout?: number | undefined;
  readonly idleTimeout?: number | undefined;
  readonly maxTokens?: number | undefined;
};

/** The hosts of the HOST:NAME refs among `names`, planned from one read of config.toml (an unknown one: UsageError). */
export async function planWaitHosts(deps: Deps, names: readonly string[]): Promise<Map<string, HostPlan>> {
  const hosts = new Set(names.flatMap((n) => parseWorkerRef(n).host ?? []));
  const plans = new Map<string, HostPlan>();
  if (hosts.size === 0) return plans;
  const { config } = await loadUserConfig(deps);
  for (const host of hosts) plans.set(host, planHost(config.hosts, host, deps.env, deps.store.root));
  return plans;
}

/**
 * The remote turn's outcome, its name HOST:NAME; retried across a dropped link to the wait's deadline.
 * `onProgress` (MCP's, when its client asked): the host's wait's updates as they come, each call's,
 * the retried ones' too, their elapsed the whole wait's (so it keeps growing across a retry).
 */
export async function waitOnHost(
  deps: Deps,
  wait: RemoteWait,
  onProgress?: (progress: GuardProgress) => void,
): Promise<Outcome> {
  const { plan, name } = wait;
  const started = deps.clock.now();
  const timeoutMs = wait.timeout ?? DEFAULT_WAIT_TIMEOUT_MS;
  const deadline = started + timeoutMs;
  // A parsed line holds no undefined field, so it is a GuardProgress as it stands.
  let progress = onProgress
    ? (p: WireProgress) => onProgress({ ...p, elapsedMs: deps.clock.now() - started } as GuardProgress)
    : undefined;
  let delay = FIRST_RETRY_MS;
  for (let attempt = 1; ; attempt++) {
    const left = Math.max(1, Math.round(deadline - deps.clock.now()));
    const input = toWire(WaitInput.shape, {
      name,
      after: wait.after,
      timeout: left,
      idleTimeout: wait.idleTimeout,
      maxTokens: wait.maxTokens,
    });
    try {
      const { value } = await callHost(
        deps,
        plan,
        {
          host: plan.name,
          verb: "wait",
          input,
          boundMs: left + LINK_MARGIN_MS,
        },
        progress,
      );
      return outcomeOf(plan.name, value, deps.clock.now() - started);
    } catch (error) {
      // The host's umbel is of this PROTOCOL but from before progress: the wait, as ever, without it.
      if (progress && isProgressRefused(error)) {
        deps.trace.mark(`ssh ${plan.name} wait: the host's umbel sends no progress; again without`);
        progress = undefined;
        continue;
      }
      if (!(error instanceof HostUnreachableError)) throw error;
      const remaining = deadline - deps.clock.now();
      if (remaining <= 0) throw goneFor(plan.name, name, timeoutMs, attempt, error);
      deps.trace.mark(`ssh ${plan.name} wait: link down (${error.message}); again in ${delay} ms`);
      await deps.clock.sleep(Math.min(delay, remaining), deps.signal);
      if (deps.signal?.aborted)
        throw new AbortedError(`aborted: the wait on ${formatWorkerRef(plan.name, name)} was stopped`, {
          host: plan.name,
        });
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }
}

function outcomeOf(host: string, value: unknown, elapsedMs: number): Outcome {
  const outcome = Outcome.safeParse(value);
  if (!outcome.success)
    throw new RemoteError(
      `host ${host}: its umbel's wait answer is not this umbel's shape: install the same umbel on both`,
      { code: "remote-failure", exitCode: 1 },
      { host },
    );
  // elapsedMs: the whole wait's, dropped links and their retries included.
  return { ...outcome.data, name: formatWorkerRef(host, outcome.data.name), elapsedMs };
}

function goneFor(
  host: string,
  name: string,
  timeoutMs: number,
  attempts: number,
  last: HostUnreachableError,
): HostUnreachableError {
  const ref = formatWorkerRef(host, name);
  return new HostUnreachableError(
    `host ${host} was unreachable for the rest of the wait on ${ref} (${Math.round(timeoutMs / 1000)}s, ${attempts} tries; last: ${last.message}); the worker is left running: wait ${ref} again`,
    { host, name, reason: "gone", timeoutMs, attempts, last: last.message },
  );
}
