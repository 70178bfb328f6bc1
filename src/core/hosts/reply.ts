import { z } from "zod";
import { parseJson } from "../common/json.ts";
import { AbortedError, HostUnreachableError, ProtocolMismatchError, RemoteError } from "../errors.ts";
import { PROTOCOL } from "./protocol.ts";

/** What ssh gave back for one remote call (the process port's result, the fields read here). */
export type SshRun = {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly timedOut: boolean;
  readonly durationMs: number;
  /** The caller's signal ended it (SIGINT, an MCP cancel). */
  readonly aborted?: boolean | undefined;
};

/** ssh's own failures (it cannot connect, authenticate, or the link died) exit 255; umbel never does. */
const SSH_FAILED = 255;
/** A shell's "command not found". */
const NOT_FOUND = 127;
/** How an umbel from before hosts (0.1.0, measured) answers `VERB --stdin-json --json`. */
const OLD_UMBEL = /unknown flag --stdin-json|^Missing required positional argument/;

const RemoteErrorJson = z.object({
  error: z.object({
    code: z.string(),
    class: z.string(),
    message: z.string(),
    exitCode: z.number().int(),
    data: z.record(z.string(), z.unknown()),
  }),
});

/**
 * The remote umbel's answer to one verb: its JSON result and exit code (a wait's outcome is a result
 * with its own exit code), or the typed error it stands for. `boundMs` is what the call was given.
 */
export function readReply(host: string, run: SshRun, boundMs: number): { value: unknown; exitCode: number } {
  checkLink(host, run, boundMs);
  const line = lastLine(run.stdout);
  if (line === null) {
    if (run.exitCode === NOT_FOUND)
      throw new RemoteError(
        `host ${host}: umbel is not on the remote PATH (set umbel = "/path/to/umbel" under [hosts.${host}])`,
        { code: "remote-umbel-missing", exitCode: NOT_FOUND },
        { host, stderr: tail(run.stderr) },
      );
    throw new RemoteError(
      `host ${host}: the remote umbel answered nothing (exit ${run.exitCode}): ${tail(run.stderr)}`,
      { code: "remote-failure", exitCode: 1 },
      { host, stderr: tail(run.stderr) },
    );
  }
  const value = parseJson(line);
  const error = RemoteErrorJson.safeParse(value);
  if (error.success) throw remoteError(host, error.data.error);
  if (value === undefined)
    throw new RemoteError(
      `host ${host}: the remote umbel's answer is not JSON: ${tail(line)}`,
      { code: "remote-failure", exitCode: 1 },
      { host },
    );
  return { value, exitCode: run.exitCode ?? 1 };
}

/**
 * A remote `umbel -p`'s run, its stdout already passed through as it came (`wrote`: any came): the
 * failures of the link and of the call as readReply has them, else -p's stderr and exit code.
 */
export function readPrintReply(
  host: string,
  run: SshRun,
  boundMs: number,
  wrote: boolean,
): { stderr: string; exitCode: number } {
  const missing = run.exitCode === NOT_FOUND && !wrote;
  if (run.aborted || run.timedOut || run.exitCode === SSH_FAILED || missing)
    readReply(host, { ...run, stdout: "" }, boundMs);
  return { stderr: run.stderr, exitCode: run.exitCode ?? 1 };
}

/** The link's own failures: stopped (aborted), past its bound or ssh's 255 (unreachable). */
export function checkLink(
  host: string,
  run: SshRun,
  boundMs: number,
  untouched = "its worker is left untouched",
): void {
  if (run.aborted)
    throw new AbortedError(`aborted: the call to host ${host} was stopped (${untouched})`, { host });
  if (run.timedOut)
    throw new HostUnreachableError(`host ${host} did not answer within ${Math.round(boundMs / 1000)}s`, {
      host,
      reason: "timeout",
      boundMs,
    });
  if (run.exitCode === SSH_FAILED) throw unreachable(host, run.stderr);
}

/**
 * An umbel of this PROTOCOL from before wait's progress refused the envelope's `progress` field (its
 * envelope is strict: `stdin is not an envelope: Unrecognized key: "progress"`): no fault of the
 * wait, which is asked again without it.
 */
export function isProgressRefused(error: unknown): boolean {
  return (
    error instanceof RemoteError &&
    error.code === "usage" &&
    error.message.includes("not an envelope") &&
    error.message.includes('"progress"')
  );
}

/** An ssh that failed to connect: the host as unreachable, with ssh's own last words as the reason. */
export function unreachable(host: string, stderr: string): HostUnreachableError {
  const reason = tail(stderr) || "ssh failed";
  return new HostUnreachableError(`host ${host} is unreachable: ${reason}`, { host, reason });
}

/** The remote's protocol (a field of its `--version --json`; none: before hosts existed) against ours. */
export function checkProtocol(host: string, remote: number | undefined, version: string): void {
  if (remote === PROTOCOL) return;
  throw new ProtocolMismatchError(
    `host ${host}: its umbel ${version} speaks protocol ${remote ?? "none"}, this umbel speaks ${PROTOCOL}: install the same umbel on both`,
    { host, local: PROTOCOL, remote: remote ?? null, remoteVersion: version },
  );
}

function remoteError(host: string, e: z.infer<typeof RemoteErrorJson>["error"]): Error {
  if (e.code === "protocol-mismatch")
    return new ProtocolMismatchError(`host ${host}: ${e.message}`, { ...e.data, host });
  // An umbel from before hosts has no --stdin-json: its flag check names it, or (a verb with a
  // required NAME) citty misses the positional first. This umbel never answers an envelope so.
  if (e.code === "usage" && OLD_UMBEL.test(e.message))
    return new ProtocolMismatchError(
      `host ${host}: its umbel does not speak protocol ${PROTOCOL} (it knows no --stdin-json): install the same umbel on both`,
      { host, local: PROTOCOL, remote: null },
    );
  return new RemoteError(
    `${host}: ${e.message}`,
    { code: e.code, exitCode: e.exitCode },
    {
      ...e.data,
      host,
      remoteClass: e.class,
    },
  );
}

function lastLine(text: string): string | null {
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  return lines.at(-1) ?? null;
}

/** The last line of a process's stderr, bounded (ssh's reason: "Connection refused"). */
export function tail(text: string): string {
  const last = text.trim().split("\n").at(-1) ?? "";
  return last.length > 300 ? `${last.slice(0, 300)}…` : last;
}
