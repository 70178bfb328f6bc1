import { z } from "zod";
import { parseJson } from "../common/json.ts";
import { FleetStatus } from "../worker/status.ts";
import { remoteCommand } from "./command.ts";
import { checkProtocol, type SshRun, unreachable } from "./reply.ts";

/**
 * `umbel hosts`: one ssh call per host runs the remote umbel three times (its version, its workers,
 * its doctor), one JSON line each, so a host costs one round trip; each bounded (HOSTS_BOUND_MS).
 */

const RemoteCli = z.object({
  id: z.string().describe("The CLI (claude, codex, gemini, opencode)"),
  status: z.string().describe("The remote doctor's verdict: ok, warn or fail"),
  message: z.string().describe("What the remote doctor found (its path and version)"),
});

export const HostRow = z.object({
  name: z.string().describe("The host's name ([hosts.NAME] of config.toml)"),
  ssh: z.string().describe("Its ssh destination"),
  reachable: z.boolean().describe("ssh reached it and its umbel answered"),
  rttMs: z.number().nullable().describe("One remote call's round trip over the master connection, in ms"),
  version: z.string().nullable().describe("The remote umbel's version"),
  protocol: z.number().nullable().describe("The remote umbel's protocol (this umbel's must match)"),
  clis: z.array(RemoteCli).describe("The agent CLIs the remote doctor found"),
  workers: FleetStatus.shape.workers.describe("The remote umbel's workers (its ls)"),
  error: z
    .object({
      code: z.string().describe("unreachable, protocol-mismatch or remote-umbel-missing"),
      message: z.string().describe("What went wrong, naming the host"),
    })
    .nullable()
    .describe("Why it is not usable: unreachable, protocol-mismatch, remote-umbel-missing …"),
});
export type HostRow = z.infer<typeof HostRow>;

export const HostsResult = z.object({
  hosts: z.array(HostRow).describe("Every host of config.toml, in its order"),
});
export type HostsResult = z.infer<typeof HostsResult>;

const Version = z.object({ version: z.string(), protocol: z.number().int().optional() });
const Doctor = z.object({
  checks: z.array(z.object({ id: z.string(), status: z.string(), message: z.string() })),
});

/** The remote command `hosts` runs: version, ls, doctor, one line each. */
export function probeCommand(umbel: string): string {
  return [
    ["--version", "--json"],
    // --local: the host's own workers (one hop), never those of its own hosts.
    ["ls", "--local", "--json"],
    ["doctor", "--json"],
  ]
    .map((words) => remoteCommand(umbel, words))
    .join("; ");
}

/** A host's row from its probe's run (`providers`: the CLIs' ids, to pick them out of doctor's checks). */
export function readProbe(
  host: { name: string; ssh: string },
  run: SshRun,
  boundMs: number,
  providers: readonly string[],
): HostRow {
  const row: HostRow = {
    name: host.name,
    ssh: host.ssh,
    reachable: false,
    rttMs: null,
    version: null,
    protocol: null,
    clis: [],
    workers: [],
    error: null,
  };
  const fail = (code: string, message: string): HostRow => ({ ...row, error: { code, message } });
  if (run.timedOut)
    return fail("unreachable", `host ${host.name} did not answer within ${Math.round(boundMs / 1000)}s`);
  if (run.exitCode === 255) return fail("unreachable", unreachable(host.name, run.stderr).message);
  const [versionLine, lsLine, doctorLine] = run.stdout.split("\n").filter((l) => l.trim() !== "");
  const version = Version.safeParse(parseJson(versionLine));
  if (!version.success)
    return {
      ...fail(
        "remote-umbel-missing",
        `host ${host.name}: no umbel answered there (set umbel = "/path/to/umbel" under [hosts.${host.name}])`,
      ),
      reachable: true,
    };
  const reached = {
    ...row,
    reachable: true,
    version: version.data.version,
    protocol: version.data.protocol ?? null,
  };
  try {
    checkProtocol(host.name, version.data.protocol, version.data.version);
  } catch (error) {
    return { ...reached, error: { code: "protocol-mismatch", message: (error as Error).message } };
  }
  const workers = FleetStatus.shape.workers.safeParse(parseJson(lsLine));
  const doctor = Doctor.safeParse(parseJson(doctorLine));
  return {
    ...reached,
    workers: workers.success ? workers.data : [],
    clis: doctor.success
      ? doctor.data.checks
          .filter((c) => providers.includes(c.id))
          .map(({ id, status, message }) => ({ id, status, message }))
      : [],
  };
}
