import { z } from "zod";

/**
 * A host: another machine's umbel, reached over SSH (docs/hosts.md). Declared in config.toml by
 * name, names and destinations only (never a secret):
 *
 *   [hosts.box]
 *   ssh = "ci@box.internal"          # anything ssh accepts, an alias of ~/.ssh/config included
 *   umbel = "~/.local/bin/umbel"     # optional: the umbel to run there (default: umbel on its PATH)
 *   ssh_command = "ssh -F ~/box.cfg" # optional: the ssh program and its options (as GIT_SSH_COMMAND)
 */

export const HostName = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,62}$/, "a host name is 1-63 of a-z 0-9 - and starts with a letter or digit")
  .describe("A host declared as [hosts.NAME] in config.toml");
export type HostName = z.infer<typeof HostName>;

export const HostConfig = z
  .object({
    ssh: z.string().min(1).describe("The ssh destination: user@host, host, or an alias of your ssh config"),
    umbel: z
      .string()
      .min(1)
      .optional()
      .describe("The umbel to run on the host (default: umbel on the remote PATH; ~/ is the remote home)"),
    ssh_command: z
      .string()
      .min(1)
      .optional()
      .describe("The ssh program and its options, split as a shell would (UMBEL_SSH_COMMAND wins)"),
  })
  .strict();
export type HostConfig = z.infer<typeof HostConfig>;

export const Hosts = z.record(z.string(), HostConfig);
export type Hosts = z.infer<typeof Hosts>;

/** The keys a [hosts.NAME] table knows (the config file's messages name them). */
export const HOST_KEYS = Object.keys(HostConfig.shape);

/** A worker a verb names: a local worker (`rev`) or one of a host's (`box:rev`). */
export type WorkerRef = { readonly host: HostName | null; readonly name: string };

/**
 * `box:rev` → {host: box, name: rev}; a name without `:` is local. A local worker's name never holds
 * a `:` (core/schemas.ts WorkerName), so the split is never ambiguous.
 */
export function parseWorkerRef(given: string): WorkerRef {
  const colon = given.indexOf(":");
  if (colon < 0) return { host: null, name: given };
  return { host: given.slice(0, colon), name: given.slice(colon + 1) };
}

/** `box:rev`, the name a caller uses for a remote worker. */
export function formatWorkerRef(host: string, name: string): string {
  return `${host}:${name}`;
}

/**
 * A worker name as the verbs that reach hosts take it: a local name (`local`'s rule), or HOST:NAME
 * (each part by its own rule), so the CLI, MCP and YAML refuse the same things.
 */
export function workerRef(local: z.ZodString, description: string): z.ZodType<string> {
  return z
    .string()
    .superRefine((given, ctx) => {
      const ref = parseWorkerRef(given);
      const issues = [
        ...(ref.host === null ? [] : (HostName.safeParse(ref.host).error?.issues ?? [])),
        ...(local.safeParse(ref.name).error?.issues ?? []),
      ];
      const first = issues[0];
      if (first) ctx.addIssue({ code: "custom", message: first.message });
    })
    .describe(`${description}; HOST:NAME for a worker of a host of config.toml`);
}

/**
 * A host of the fleet view (`ls`, `status` without a name) that gave no workers: unreachable (ssh
 * could not reach it in its bound) or host-error (it answered, but not with its workers: another
 * protocol, no umbel there, its ls failed). One entry beside the others' workers, never an empty fleet.
 */
export const HostDown = z.object({
  host: HostName.describe("The host of config.toml"),
  state: z
    .enum(["unreachable", "host-error"])
    .describe("unreachable: ssh did not reach it in time; host-error: it answered, with an error"),
  code: z.string().describe("The error's code: unreachable, protocol-mismatch, remote-umbel-missing …"),
  reason: z.string().describe("What went wrong, naming the host"),
});
export type HostDown = z.infer<typeof HostDown>;
