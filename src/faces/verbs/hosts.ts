import { UsageError } from "../../core/errors.ts";
import { HostsInput, HostsOutput } from "../../core/hosts/install.ts";
import { HostsResult } from "../../core/hosts/probe.ts";
import { renderHosts } from "../../core/hosts/render.ts";
import { EmptyInput } from "../../core/schemas.ts";
import { installOnHost } from "../../operations/hosts/install.ts";
import { listHosts } from "../../operations/hosts/list.ts";
import { renderInstall } from "./render-install.ts";
import { defineVerb } from "./verb.ts";

/** The hosts of config.toml (docs/hosts.md): `umbel hosts` (how a verb reaches them: reach.ts). */

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
