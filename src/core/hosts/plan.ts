import { join } from "node:path";
import { didYouMean } from "../common/suggest.ts";
import { UsageError } from "../errors.ts";
import type { HostConfig, Hosts } from "./schema.ts";
import { splitShellWords } from "./shell-words.ts";

/**
 * How long `hosts` (and the fleet view: ls, status) gives each host, all asked at once: a host past
 * it shows unreachable. Here, not beside `hosts`' schemas (probe.ts), so ls loads none of those.
 */
export const HOSTS_BOUND_MS = 10_000;

/** The variable that gives the ssh program and its options, as GIT_SSH_COMMAND does for git. */
const SSH_COMMAND_ENV = "UMBEL_SSH_COMMAND";

/** One host, ready to be called: where, with which ssh, which umbel there, where its master lives. */
export type HostPlan = {
  readonly name: string;
  readonly destination: string;
  readonly ssh: readonly string[];
  readonly umbel: string;
  readonly controlDir: string;
};

/** The hosts of config.toml by name; an unknown name is a usage error naming the known ones. */
export function planHost(
  hosts: Hosts | undefined,
  name: string,
  env: Readonly<Record<string, string | undefined>>,
  stateRoot: string,
): HostPlan {
  const config = hosts?.[name];
  if (!config)
    throw new UsageError(unknownHost(hosts, name) ?? name, { host: name, known: Object.keys(hosts ?? {}) });
  return planOf(name, config, env, stateRoot);
}

/** Why `name` is no host of config.toml (null: it is one), naming the hosts it has. */
export function unknownHost(hosts: Hosts | undefined, name: string): string | null {
  if (hosts?.[name]) return null;
  const known = Object.keys(hosts ?? {});
  return known.length === 0
    ? `no host ${name}: config.toml declares no [hosts.NAME] (docs/hosts.md)`
    : `no host ${name} in config.toml (hosts: ${known.join(", ")})${didYouMean(name, known)}`;
}

/** Every host of config.toml, in the file's order. */
export function planHosts(
  hosts: Hosts | undefined,
  env: Readonly<Record<string, string | undefined>>,
  stateRoot: string,
): HostPlan[] {
  return Object.entries(hosts ?? {}).map(([name, config]) => planOf(name, config, env, stateRoot));
}

function planOf(
  name: string,
  config: HostConfig,
  env: Readonly<Record<string, string | undefined>>,
  stateRoot: string,
): HostPlan {
  const fromEnv = env[SSH_COMMAND_ENV];
  // The variable wins over the file, as GIT_SSH_COMMAND wins over core.sshCommand.
  const ssh =
    fromEnv !== undefined && fromEnv.trim() !== ""
      ? splitShellWords(fromEnv, SSH_COMMAND_ENV)
      : config.ssh_command !== undefined
        ? splitShellWords(config.ssh_command, `[hosts.${name}] ssh_command`)
        : ["ssh"];
  return {
    name,
    destination: config.ssh,
    ssh,
    umbel: config.umbel ?? "umbel",
    controlDir: join(stateRoot, "ssh"),
  };
}
