import type { BuildInfo } from "../../core/doctor/build-info.ts";
import { PROTOCOL } from "../../core/hosts/protocol.ts";

/**
 * The build's identity. The commit is a compile-time constant (`bun build --define
 * UMBEL_BUILD_COMMIT=…`, scripts/build-info.ts); run from source it is undefined, hence "unknown".
 */
export function readBuildInfo(version: string): BuildInfo {
  return {
    version,
    commit:
      typeof UMBEL_BUILD_COMMIT === "string" && UMBEL_BUILD_COMMIT !== "" ? UMBEL_BUILD_COMMIT : "unknown",
    bun: Bun.version,
    platform: process.platform,
    arch: process.arch,
    protocol: PROTOCOL,
  };
}
