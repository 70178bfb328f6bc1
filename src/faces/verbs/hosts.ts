import { z } from "zod";
import { UsageError } from "../../core/errors.ts";
import { HostsInput, HostsOutput } from "../../core/hosts/install.ts";
import { HostsResult } from "../../core/hosts/probe.ts";
import { renderHosts } from "../../core/hosts/render.ts";
import { HostName, parseWorkerRef, workerRef } from "../../core/hosts/schema.ts";
import { EmptyInput, WorkerName } from "../../core/schemas.ts";
import { installOnHost } from "../../operations/hosts/install.ts";
import { listHosts } from "../../operations/hosts/list.ts";
import { relayTyped } from "../../operations/hosts/relay.ts";
import { renderInstall } from "./render-install.ts";
import { type AnyObject, defineVerb, type Verb, type VerbContext } from "./verb.ts";

/**
 * The hosts of config.toml (docs/hosts.md): `umbel hosts`, and the verbs that reach a host's
 * workers. A verb given `box:NAME` (spawn: `--host box`) runs on box's umbel over ssh, and this
 * umbel keeps nothing of it; a local name runs here, unchanged.
 */

export const hostsVerb = defineVerb({
  name: "hosts",
  description:
    "List the hosts of config.toml ([hosts.NAME], reached over ssh): each one's reachability and round trip, its umbel's version and protocol, its agent CLIs and its live workers; every host asked at once, each bounded (10s). `install NAME` puts this umbel (or --from DIR's file for the host's platform) on the host, checksum-verified and atomically, and runs its doctor there",
  input: HostsInput,
  output: HostsOutput,
  run: async ({ action, host, from }, { deps }): Promise<HostsOutput> => {
    if (action === undefined && host === undefined) return listHosts(deps);
    if (action === undefined || host === undefined)
      throw new UsageError("usage: umbel hosts install NAME [--from DIR]", { action, host });
    return { install: await installOnHost(deps, host, { from }) };
  },
  text: (r) => (r.install ? renderInstall(r.install) : renderHosts({ hosts: r.hosts ?? [] })),
  // An install's status is its doctor's: 0 when no check failed there (docs/hosts.md).
  exitCode: (r) => (r.install ? (r.install.doctor.exitCode ?? 1) : 0),
  cli: {
    usage: "[install NAME [--from DIR]]",
    summary:
      "the hosts of config.toml: reachable, round trip, version, CLIs, workers; install NAME: put umbel there",
    positionals: ["action", "host"],
    json: (r) => r.install ?? r.hosts,
    details:
      "install NAME: the host's platform from uname -sm and its libc over ssh; the file is this umbel's own binary when the host's platform is this one's, else --from DIR's umbel-<target> (a release directory, npm run release), whose SHA-256 is checked against DIR/SHA256SUMS before anything is sent. It goes on ssh's stdin into a temp file beside the target, is checked there, chmod 755, and renamed over the old one (which a failure leaves untouched). The target: [hosts.NAME] umbel = a path (~/ is the remote home), else ~/.local/bin/umbel. Then the new umbel's doctor runs there and is printed. Exit: the doctor's (0: no check failed; 1: one failed), 65 a checksum mismatch, 73 the host could not write it, 69 unreachable, 2 usage (no file for the host's platform). Not an MCP tool: installing software on a machine is the operator's act.",
    examples: ["umbel hosts install box", "umbel hosts install box --from dist/release --json"],
  },
  mcp: {
    title: "List the hosts",
    // It only looks, but at other machines.
    annotations: { readOnlyHint: true, openWorldHint: true },
    // Listing only: an install puts software on a machine, the operator's act (umbel hosts install NAME).
    input: EmptyInput,
    output: HostsResult,
    text: (r) => renderHosts({ hosts: r.hosts ?? [] }),
  },
});

/**
 * How a verb reaches a host: by spawn's --host, or by the HOST:NAME of the worker it names, relayed
 * here; or (self) the verb's own run reaches the hosts (wait: one remote wait per HOST:NAME, retried
 * across a dropped link), and only its names are widened to take HOST:NAME.
 */
type Reach =
  | {
      readonly by: "host-flag" | "name";
      /** The whole remote call's bound, from the verb's input (a wait's own timeout, plus the link's). */
      boundMs(input: Readonly<Record<string, unknown>>): number;
    }
  | { readonly by: "self" };

/** The verb, taking HOST:NAME (or spawn's --host) too: a remote worker's verb is relayed there. */
export function reachHosts(verb: Verb, reach: Reach): Verb {
  const widen = (schema: AnyObject): AnyObject =>
    reach.by === "host-flag"
      ? (schema.safeExtend({
          host: HostName.optional().describe(
            "Start the worker on this host of config.toml (its umbel, over ssh; --cwd is the host's path); name it HOST:NAME after",
          ),
        }) as unknown as AnyObject)
      : (schema.safeExtend({
          name: nameOf(schema.shape.name as z.ZodType),
          ...(schema.shape.names ? { names: namesOf(schema.shape.names as z.ZodType) } : {}),
        }) as unknown as AnyObject);
  const mcp = verb.mcp && { ...verb.mcp, ...(verb.mcp.input ? { input: widen(verb.mcp.input) } : {}) };
  return {
    ...verb,
    input: widen(verb.input),
    mcp,
    async run(given, ctx) {
      if (reach.by === "self") return verb.run(given, ctx);
      const fields = given as Record<string, unknown>;
      const { host: flag, ...rest } = fields;
      const ref =
        reach.by === "host-flag"
          ? { host: (flag as string | undefined) ?? null, name: String(fields.name) }
          : parseWorkerRef(String(fields.name ?? ""));
      if (ref.host === null) return verb.run(reach.by === "host-flag" ? rest : given, ctx);
      return relay(verb, reach, ref.host, { ...rest, name: ref.name }, ctx);
    },
  };
}

function relay(
  verb: Verb,
  reach: { boundMs(input: Readonly<Record<string, unknown>>): number },
  host: string,
  input: Record<string, unknown>,
  { deps }: VerbContext,
): Promise<unknown> {
  return relayTyped(deps, {
    host,
    verb: verb.name,
    shape: verb.input.shape as Record<string, z.ZodType>,
    output: verb.output,
    input,
    verbMs: reach.boundMs(input),
  });
}

function nameOf(field: z.ZodType): z.ZodType<string | undefined> {
  const ref = workerRef(WorkerName, field.description ?? "Worker name");
  return field.safeParse(undefined).success ? ref.optional() : ref;
}

function namesOf(field: z.ZodType): z.ZodType<string[] | undefined> {
  return z
    .array(workerRef(WorkerName, "Worker name"))
    .optional()
    .describe(field.description ?? "Worker names");
}
