import { join, resolve } from "node:path";
import { ChecksumMismatchError, UsageError } from "../../core/errors.ts";
import { sshArgv } from "../../core/hosts/command.ts";
import {
  doctorCommand,
  type InstallResult,
  installCommand,
  installPath,
  probeCommand,
  readDoctorRun,
  readInstallProbe,
  readInstallRun,
} from "../../core/hosts/install.ts";
import {
  findReleaseFile,
  parseSha256Sums,
  type ReleaseTarget,
  targetOf,
} from "../../core/hosts/install-target.ts";
import type { HostPlan } from "../../core/hosts/plan.ts";
import type { Deps } from "../../core/ports.ts";
import { loadHost } from "./relay.ts";

/** The probe (uname, libc, the umbel there now) and the doctor: short calls. */
const PROBE_BOUND_MS = 15_000;
const DOCTOR_BOUND_MS = 60_000;
/** The transfer: 30 s, plus a second a MB (a 100 MB binary at 1 MB/s; loopback takes ~0.5 s). */
const SEND_BASE_MS = 30_000;
const SEND_MS_PER_BYTE = 1 / 1_000;

export type InstallOptions = {
  /** A release directory (npm run release): umbel-<target> files and their SHA256SUMS. */
  readonly from?: string | undefined;
};

/**
 * `umbel hosts install NAME` (docs/hosts.md): the host's platform (one ssh), the file for it (this
 * umbel's own binary when its target is the host's, else --from DIR's, checked against SHA256SUMS
 * before anything is sent), the file on ssh's stdin into a temp file beside the target, its sum
 * checked there, one rename over the old one (a second ssh), then the new umbel's doctor (a third),
 * all over the host's master connection.
 */
export async function installOnHost(
  deps: Deps,
  name: string,
  options: InstallOptions,
): Promise<InstallResult> {
  const plan = await loadHost(deps, name);
  const from = options.from === undefined ? undefined : resolve(deps.cwd, options.from);
  const { path, configured } = installPath(plan.umbel);
  // A release directory is read before any ssh: a wrong one is the caller's to fix, the host untouched.
  const sums = from === undefined ? null : await readSums(deps, from);
  const probe = readInstallProbe(
    name,
    await run(deps, plan, probeCommand(path), PROBE_BOUND_MS),
    PROBE_BOUND_MS,
  );
  const source = await pickFile(deps, name, probe.target, from, sums);
  const bound = SEND_BASE_MS + Math.round(source.bytes * SEND_MS_PER_BYTE);
  deps.trace.mark(`hosts install ${name}: ${source.file} (${source.bytes} bytes) to ${path}`);
  const sent = await run(deps, plan, installCommand(path, source.sha256), bound, source.file);
  readInstallRun(name, sent, bound, { path, sha256: source.sha256 });
  const after = readDoctorRun(
    name,
    await run(deps, plan, doctorCommand(path), DOCTOR_BOUND_MS),
    DOCTOR_BOUND_MS,
  );
  return {
    host: name,
    path,
    resolved: probe.resolved,
    configured,
    onPath: probe.onPath,
    target: probe.target,
    source: source.kind,
    file: source.file,
    sha256: source.sha256,
    bytes: source.bytes,
    version: after.version,
    previous: probe.previous,
    doctor: after.doctor,
  };
}

type Source = { kind: "running" | "release"; file: string; sha256: string; bytes: number };

/** The file for `target`: --from DIR's (its sum as SHA256SUMS lists it), else this umbel's own binary. */
async function pickFile(
  deps: Deps,
  host: string,
  target: ReleaseTarget,
  from: string | undefined,
  sums: Record<string, string> | null,
): Promise<Source> {
  if (from !== undefined && sums !== null) {
    const listed = findReleaseFile(host, target, from, sums);
    const file = join(from, listed.file);
    const digest = await deps.files.digest(file);
    if (digest === null)
      throw new UsageError(`${file}: no such file (its SHA256SUMS lists it)`, { host, target, file });
    if (digest.sha256 !== listed.sha256)
      throw new ChecksumMismatchError(
        `${file}: its SHA-256 is ${digest.sha256}, its SHA256SUMS says ${listed.sha256}: nothing was sent to ${host}`,
        { host, file, expected: listed.sha256, actual: digest.sha256 },
      );
    return { kind: "release", file, sha256: digest.sha256, bytes: digest.bytes };
  }
  const self = deps.system.selfCommand()?.[0];
  const mine = targetOf(deps.host.platform, deps.host.arch, await deps.host.isMusl());
  if (self === undefined)
    throw new UsageError(
      `this umbel is not a compiled binary (run from source): give --from DIR, a release directory (npm run release) holding umbel-${target}`,
      { host, target },
    );
  if (mine !== target)
    throw new UsageError(
      `host ${host} is ${target}, this umbel is ${mine ?? `${deps.host.platform}-${deps.host.arch}`}: give --from DIR, a release directory (npm run release -- --targets ${target}) holding umbel-${target}`,
      { host, target, local: mine },
    );
  const digest = await deps.files.digest(self);
  if (digest === null) throw new UsageError(`this umbel's binary ${self} is gone`, { host, file: self });
  return { kind: "running", file: self, sha256: digest.sha256, bytes: digest.bytes };
}

async function readSums(deps: Deps, dir: string): Promise<Record<string, string>> {
  const file = join(dir, "SHA256SUMS");
  const text = await deps.files.readText(file);
  if (text === null)
    throw new UsageError(
      `--from ${dir}: no SHA256SUMS there (a release directory, as npm run release makes one)`,
      {
        dir,
      },
    );
  return parseSha256Sums(text, file);
}

function run(deps: Deps, plan: HostPlan, command: string, timeoutMs: number, inputFile?: string) {
  return deps.ssh.run(sshArgv({ ...plan, command }), {
    input: "",
    ...(inputFile === undefined ? {} : { inputFile }),
    timeoutMs,
    controlDir: plan.controlDir,
    signal: deps.signal,
  });
}
