import { z } from "zod";
import { parseJson } from "../common/json.ts";
import { choiceError } from "../common/suggest.ts";
import { DoctorResult } from "../doctor/schema.ts";
import { ChecksumMismatchError, InstallFailedError, RemoteError } from "../errors.ts";
import { quoteForShell, quotePath, remoteCommand } from "./command.ts";
import { RELEASE_TARGETS, type ReleaseTarget, type RemotePlatform, targetOfUname } from "./install-target.ts";
import { HostsResult } from "./probe.ts";
import { checkLink, type SshRun, tail } from "./reply.ts";
import { HostName } from "./schema.ts";

/**
 * `umbel hosts install NAME` (docs/hosts.md), the pure half: where the umbel goes on the host, the
 * three fixed remote commands (probe, install, doctor) and what their runs mean. Each remote command
 * is a short POSIX sh script given its operands on the line (a path and a hash: no secret); the
 * binary itself travels on ssh's stdin.
 */

/** Where an umbel known only by name (umbel on the remote PATH, the default) is put. */
const DEFAULT_DIR = "~/.local/bin";

/** The install path of a host's `umbel`: a path as configured; a bare name goes under ~/.local/bin. */
export function installPath(umbel: string): { path: string; configured: boolean } {
  return umbel.includes("/")
    ? { path: umbel, configured: true }
    : { path: `${DEFAULT_DIR}/${umbel}`, configured: false };
}

/**
 * $1 the install path. One `key value` line each: the machine, its libc, Rosetta on macOS, the path
 * expanded, whether its folder is on the PATH ssh commands get, and the umbel there now (its
 * `--version --json`, stdin closed so it cannot eat ours). musl as scripts/install.sh tells it.
 */
const PROBE_SCRIPT = `t=$1
echo "uname $(uname -sm)"
if ldd --version 2>&1 | grep -qi musl || ls /lib/ld-musl-*.so.1 >/dev/null 2>&1; then echo "libc musl"; else echo "libc glibc"; fi
if [ "$(uname -s)" = Darwin ]; then echo "translated $(sysctl -n sysctl.proc_translated 2>/dev/null)"; fi
echo "path $t"
case ":$PATH:" in *":\${t%/*}:"*) echo "onpath yes";; *) echo "onpath no";; esac
if [ -f "$t" ] && [ -x "$t" ]; then echo "previous $("$t" --version --json </dev/null 2>/dev/null | tail -n 1)"; fi
exit 0`;

/** The script's exit codes (install's own, never a shell's 1, 2 or 126-127, nor ssh's 255). */
const MKDIR_FAILED = 80;
const WRITE_FAILED = 81;
const NO_SHA_TOOL = 82;
const MISMATCH = 83;
const MOVE_FAILED = 84;

/**
 * $1 the install path, $2 the expected SHA-256. stdin to a temp file in the target's own folder
 * (so the rename is atomic, never a copy across filesystems), its sum checked, chmod 755, one
 * `mv -f` over the target. Any failure (a signal, the link dropping: sshd hangs the shell up)
 * removes the temp file and leaves the old umbel as it was. Each way out cleans up by itself, not
 * only the EXIT trap: dash ends a hung-up shell by the signal (129), bash by the trap's exit 130.
 */
const INSTALL_SCRIPT = `t=$1 sum=$2 d=\${1%/*} tmp=""
clean() { if [ -n "$tmp" ]; then rm -f "$tmp"; fi; }
fail() { clean; echo "umbel-install: $2" >&2; exit "$1"; }
trap clean EXIT
trap 'clean; exit 130' HUP INT TERM
[ -d "$t" ] && fail ${MOVE_FAILED} "$t is a folder"
mkdir -p "$d" || fail ${MKDIR_FAILED} "cannot make $d"
tmp="$d/.umbel-install.$$"
cat >"$tmp" || fail ${WRITE_FAILED} "cannot write $tmp"
if command -v sha256sum >/dev/null 2>&1; then got=$(sha256sum <"$tmp")
elif command -v shasum >/dev/null 2>&1; then got=$(shasum -a 256 <"$tmp")
else fail ${NO_SHA_TOOL} "neither sha256sum nor shasum is there to check the file"; fi
got=\${got%% *}
[ "$got" = "$sum" ] || fail ${MISMATCH} "checksum mismatch: the bytes received hash to $got"
chmod 755 "$tmp" && mv -f "$tmp" "$t" || fail ${MOVE_FAILED} "cannot move the file over $t"
tmp=""
echo "installed $t"`;

/** The probe's remote command line. */
export function probeCommand(path: string): string {
  return scriptCommand(PROBE_SCRIPT, "umbel-probe", [quotePath(path)]);
}

/** The install's remote command line (the binary on stdin). */
export function installCommand(path: string, sha256: string): string {
  return scriptCommand(INSTALL_SCRIPT, "umbel-install", [quotePath(path), quoteForShell(sha256)]);
}

/** Then the new umbel there: its version, then its doctor (whose status is the command's). */
export function doctorCommand(path: string): string {
  return `${remoteCommand(path, ["--version", "--json"])} </dev/null; ${remoteCommand(path, ["doctor", "--json"])} </dev/null`;
}

/** `sh -c SCRIPT NAME ARGS…`: any login shell runs it the same (fish, zsh), the operands as $1…. */
function scriptCommand(script: string, name: string, operands: readonly string[]): string {
  return ["sh", "-c", quoteForShell(script), name, ...operands].join(" ");
}

const Previous = z
  .object({
    version: z.string().describe("Its version"),
    protocol: z.number().int().nullable().describe("Its protocol (null: from before hosts)"),
  })
  .describe("The umbel that was at the path before (its --version --json), or null");

export type InstallProbe = {
  readonly target: ReleaseTarget;
  /** The path as the remote shell expanded it. */
  readonly resolved: string;
  readonly onPath: boolean;
  readonly previous: z.infer<typeof Previous> | null;
};

/** The probe's answer. */
export function readInstallProbe(host: string, run: SshRun, boundMs: number): InstallProbe {
  checkLink(host, run, boundMs);
  const lines = new Map<string, string>();
  for (const line of run.stdout.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) lines.set(line.slice(0, space), line.slice(space + 1));
  }
  const uname = lines.get("uname");
  const resolved = lines.get("path");
  if (run.exitCode !== 0 || uname === undefined || resolved === undefined)
    throw new RemoteError(
      `host ${host}: the install's probe failed (exit ${run.exitCode}): ${tail(run.stderr) || "no answer"}`,
      { code: "remote-failure", exitCode: 1 },
      { host, stderr: tail(run.stderr) },
    );
  const platform: RemotePlatform = {
    uname,
    musl: lines.get("libc") === "musl",
    translated: lines.get("translated") === "1",
  };
  return {
    target: targetOfUname(host, platform),
    resolved,
    onPath: lines.get("onpath") === "yes",
    previous: readPrevious(lines.get("previous")),
  };
}

function readPrevious(line: string | undefined): InstallProbe["previous"] {
  const parsed = z
    .object({ version: z.string(), protocol: z.number().int().optional() })
    .safeParse(parseJson(line));
  return parsed.success ? { version: parsed.data.version, protocol: parsed.data.protocol ?? null } : null;
}

/** The install's answer: nothing on success; a mismatch or a failed write is its typed error. */
export function readInstallRun(
  host: string,
  run: SshRun,
  boundMs: number,
  sent: { path: string; sha256: string },
): void {
  // A stopped transfer: the host's script sees its stdin end early, the sum fails, the temp file goes.
  checkLink(host, run, boundMs, "nothing was installed, the old umbel is untouched");
  if (run.exitCode === 0 && run.stdout.includes("installed ")) return;
  const reason = tail(run.stderr).replace(/^umbel-install: /, "") || `exit ${run.exitCode}`;
  const data = { host, path: sent.path, expected: sent.sha256, reason };
  if (run.exitCode === MISMATCH)
    throw new ChecksumMismatchError(
      `host ${host}: ${reason}, not ${sent.sha256}: nothing was installed, the old umbel is untouched`,
      { ...data, actual: /[0-9a-f]{64}/.exec(reason)?.[0] ?? null },
    );
  throw new InstallFailedError(
    `host ${host}: ${reason}: nothing was installed at ${sent.path}, the old umbel is untouched`,
    data,
  );
}

export const InstallDoctor = z.object({
  exitCode: z.number().nullable().describe("The remote doctor's exit status (0: no check failed)"),
  result: DoctorResult.nullable().describe("Its --json answer (null: it gave none this umbel reads)"),
  output: z.string().describe("What it printed when its answer was not JSON (else empty)"),
});
export type InstallDoctor = z.infer<typeof InstallDoctor>;

/** The doctor command's answer: the new umbel's version, then its doctor. */
export function readDoctorRun(
  host: string,
  run: SshRun,
  boundMs: number,
): { version: string | null; doctor: InstallDoctor } {
  checkLink(host, run, boundMs);
  const lines = run.stdout.split("\n").filter((l) => l.trim() !== "");
  const version = z.object({ version: z.string() }).safeParse(parseJson(lines[0]));
  const result = DoctorResult.safeParse(parseJson(lines.at(-1)));
  return {
    version: version.success ? version.data.version : null,
    doctor: {
      exitCode: run.exitCode,
      result: result.success ? result.data : null,
      output: result.success ? "" : `${run.stdout}${run.stderr}`.trim(),
    },
  };
}

export const InstallResult = z.object({
  host: z.string().describe("The host of config.toml"),
  path: z.string().describe("Where umbel went, as config.toml's umbel = (or ~/.local/bin/umbel) says it"),
  resolved: z.string().describe("That path as the remote shell expanded it"),
  configured: z.boolean().describe("config.toml names this path ([hosts.NAME] umbel = a path)"),
  onPath: z.boolean().describe("Its folder is on the PATH the host's ssh commands get"),
  target: z.enum(RELEASE_TARGETS).describe("The host's release target (uname -sm, libc)"),
  source: z
    .enum(["running", "release"])
    .describe("running: this umbel's own binary; release: --from DIR's file"),
  file: z.string().describe("The local file sent"),
  sha256: z.string().describe("Its SHA-256, checked on the host before the rename"),
  bytes: z.number().int().describe("Its size"),
  version: z.string().nullable().describe("The installed umbel's version (its --version --json there)"),
  previous: Previous.nullable(),
  doctor: InstallDoctor.describe("`umbel doctor` run there, with the new umbel"),
});
export type InstallResult = z.infer<typeof InstallResult>;

/** `umbel hosts [install NAME [--from DIR]]`: the CLI's input (MCP's umbel_hosts takes none: it lists). */
export const HostsInput = z
  .object({
    action: z
      .enum(["install"], { error: choiceError })
      .optional()
      .describe(
        "install: put this umbel on the host and run its doctor there (CLI only); none: list the hosts",
      ),
    host: HostName.optional().describe("install: the host ([hosts.NAME] of config.toml)"),
    from: z
      .string()
      .min(1)
      .optional()
      .describe(
        "install: a release directory (npm run release: umbel-<target> files and SHA256SUMS) to take the host's file from, when this umbel's platform is not the host's",
      ),
  })
  .strict();
export type HostsInput = z.infer<typeof HostsInput>;

/** What the hosts verb answers: the list, or an install's record. */
export const HostsOutput = z.object({
  hosts: HostsResult.shape.hosts.optional(),
  install: InstallResult.optional().describe(
    "hosts install: what was installed where, and the host's doctor",
  ),
});
export type HostsOutput = z.infer<typeof HostsOutput>;
