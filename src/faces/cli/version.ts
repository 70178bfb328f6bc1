import type { BuildInfo } from "../../core/doctor/build-info.ts";

/** `umbel --version`: the version first, so `umbel --version | cut -d' ' -f1` is the version. */
export function renderVersion(info: BuildInfo, json: boolean): string {
  if (json) return `${JSON.stringify(info)}\n`;
  const commit =
    info.commit === "unknown" ? info.commit : info.commit.replace(/^([0-9a-f]{12})[0-9a-f]*/, "$1");
  return `${info.version} (commit ${commit}, bun ${info.bun}, ${info.platform}-${info.arch})\n`;
}
