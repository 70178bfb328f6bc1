import type { z } from "zod";
import { RemoteError } from "../../core/errors.ts";
import {
  LINK_MARGIN_MS,
  renderEnvelope,
  resolveWireEnv,
  sshArgv,
  toWire,
  verbCommand,
} from "../../core/hosts/command.ts";
import { type HostPlan, planHost } from "../../core/hosts/plan.ts";
import { readProgressLine, splitLines, type WireProgress } from "../../core/hosts/progress.ts";
import { readReply, type SshRun } from "../../core/hosts/reply.ts";
import { formatWorkerRef } from "../../core/hosts/schema.ts";
import type { Deps, SshOptions } from "../../core/ports.ts";
import type { EnvSpec } from "../../core/schemas.ts";
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
async function relayVerb(deps: Deps, call: RemoteCall): Promise<{ value: unknown; exitCode: number }> {
  return callHost(deps, await loadHost(deps, call.host), call);
}

/** A verb relayed with its input as parsed here, and its answer checked against the verb's own output. */
export type TypedCall<T> = {
  readonly host: string;
  readonly verb: string;
  /** The verb's input schema's shape (which fields are durations: toWire). */
  readonly shape: Readonly<Record<string, z.ZodType>>;
  readonly output: z.ZodType<T>;
  readonly input: Readonly<Record<string, unknown>>;
  /** The verb's own time; the link's margin is added. */
  readonly verbMs: number;
};

/**
 * relayVerb for an input parsed on this side (the CLI's, MCP's, a workflow's): durations go as
 * "<n>ms", `--env NAME` takes its value from this environment (core/hosts/command.ts); the answer
 * must be the verb's output here (another shape: a RemoteError saying to install the same umbel),
 * and its `name` comes back as HOST:NAME.
 */
export async function relayTyped<T>(deps: Deps, call: TypedCall<T>): Promise<T> {
  const wire = toWire(call.shape, call.input);
  if (wire.env !== undefined) wire.env = resolveWireEnv(wire.env as EnvSpec, deps.env);
  const { value } = await relayVerb(deps, {
    host: call.host,
    verb: call.verb,
    input: wire,
    boundMs: call.verbMs + LINK_MARGIN_MS,
  });
  const result = call.output.safeParse(value);
  if (!result.success)
    throw new RemoteError(
      `host ${call.host}: its umbel's ${call.verb} answer is not this umbel's shape (${issueOf(result.error)}): install the same umbel on both`,
      { code: "remote-failure", exitCode: 1 },
      { host: call.host },
    );
  const data = result.data as Record<string, unknown>;
  return (
    typeof data.name === "string" ? { ...data, name: formatWorkerRef(call.host, data.name) } : data
  ) as T;
}

function issueOf(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join(".") || "the answer"}: ${issue.message}` : "invalid";
}

/**
 * relayVerb on a host already planned (the fleet view plans every host from one read of config.toml).
 * With `onProgress` (a wait's, docs/hosts.md#progress-of-a-wait-on-a-host) the envelope asks for progress and ssh's
 * stdout is read as it comes: each `{"progress": …}` line goes to onProgress, the rest is the answer.
 */
export async function callHost(
  deps: Deps,
  plan: HostPlan,
  call: RemoteCall,
  onProgress?: (progress: WireProgress) => void,
): Promise<{ value: unknown; exitCode: number }> {
  const argv = sshArgv({ ...plan, command: verbCommand(plan.umbel, call.verb) });
  const options = {
    input: renderEnvelope({ ...call.input }, { progress: onProgress !== undefined }),
    timeoutMs: call.boundMs,
    controlDir: plan.controlDir,
    signal: deps.signal,
  };
  deps.trace.mark(`ssh ${call.host} ${call.verb}`);
  const run = onProgress
    ? await streamAnswer(deps, argv, options, onProgress)
    : await deps.ssh.run(argv, options);
  deps.trace.mark(`ssh ${call.host} ${call.verb}: exit ${run.exitCode} in ${run.durationMs} ms`);
  return readReply(call.host, run, call.boundMs);
}

/** The streaming run of one call: its progress lines handed on as they come, its other lines its stdout. */
async function streamAnswer(
  deps: Deps,
  argv: readonly string[],
  options: SshOptions,
  onProgress: (progress: WireProgress) => void,
): Promise<SshRun> {
  const answer: string[] = [];
  const lines = splitLines((text) => {
    const progress = readProgressLine(text);
    if (progress) onProgress(progress);
    else answer.push(text);
  });
  const run = await deps.ssh.stream(argv, { ...options, onStdout: lines.push });
  lines.end();
  return { ...run, stdout: answer.join("\n") };
}

/** The host of config.toml named (an unknown one is a usage error). */
export async function loadHost(deps: Deps, name: string): Promise<HostPlan> {
  const { config } = await loadUserConfig(deps);
  return planHost(config.hosts, name, deps.env, deps.store.root);
}
