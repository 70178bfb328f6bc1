import type { HostRow, HostsResult } from "./probe.ts";

/** `umbel hosts`: one line per host, what it is, then its workers indented under it. */
export function renderHosts(result: HostsResult): string {
  if (result.hosts.length === 0)
    return "no hosts (declare one as [hosts.NAME] in config.toml: docs/hosts.md)\n";
  return result.hosts.map(renderHost).join("");
}

function renderHost(row: HostRow): string {
  const state = row.error
    ? `${row.reachable ? "reachable" : "unreachable"}: ${row.error.message}`
    : `reachable · ${row.rttMs ?? "?"} ms · umbel ${row.version ?? "?"} (protocol ${row.protocol ?? "?"})`;
  const clis = row.clis.map((c) => `${c.id} ${c.status}`).join(", ");
  const workers = row.workers.map((w) => `  ${row.name}:${w.name}\t${w.state}\n`).join("");
  return `${row.name}\t${row.ssh}\t${state}\n${clis ? `  clis: ${clis}\n` : ""}${workers}`;
}
