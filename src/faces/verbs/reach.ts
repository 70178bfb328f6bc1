import { z } from "zod";
import { REMOTE_VERB_MS } from "../../core/hosts/command.ts";
import { HostName, parseWorkerRef, workerRef } from "../../core/hosts/schema.ts";
import { WorkerName } from "../../core/schemas.ts";
import { relayTyped } from "../../operations/hosts/relay.ts";
import type { AnyObject, Verb, VerbContext } from "./verb.ts";

/**
 * The verbs that reach a host's workers (docs/hosts.md). A verb given `box:NAME` (spawn: `--host
 * box`) runs on box's umbel over ssh, and this umbel keeps nothing of it; a local name runs here,
 * unchanged. Each verb module wraps its own verbs, so the CLI loads only the module of the verb run.
 */

/** The bound of a relayed verb that has no timeout of its own. */
export const fixedBound = () => REMOTE_VERB_MS;

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
