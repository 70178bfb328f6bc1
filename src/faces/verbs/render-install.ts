import type { InstallResult } from "../../core/hosts/install.ts";
import { renderDoctor } from "./doctor.ts";

/**
 * `umbel hosts install NAME`'s text: what went where, a note when an umbel put in the default place
 * is not one the host's ssh commands find on their PATH, then the host's doctor as it answered.
 */
export function renderInstall(r: InstallResult): string {
  const mb = `${(r.bytes / 1e6).toFixed(1)} MB`;
  const what = r.version === null ? "umbel" : `umbel ${r.version}`;
  const from = r.source === "running" ? "this umbel's own binary" : r.file;
  const was = r.previous === null ? "" : `; it replaced ${r.previous.version}`;
  const lines = [
    `installed ${what} on ${r.host} at ${r.path} (${r.target}, ${mb}, sha256 ${r.sha256.slice(0, 16)}…) from ${from}${was}`,
  ];
  if (!r.configured && !r.onPath) {
    const dir = r.path.slice(0, r.path.lastIndexOf("/"));
    lines.push(
      `note: ${dir} is not on the PATH of ${r.host}'s ssh commands, so umbel there does not find it: set umbel = "${r.path}" under [hosts.${r.host}] in config.toml`,
    );
  }
  lines.push(`doctor on ${r.host} (exit ${r.doctor.exitCode}):`);
  const doctor = r.doctor.result === null ? `${r.doctor.output}\n` : renderDoctor(r.doctor.result);
  return `${lines.join("\n")}\n${doctor}`;
}
