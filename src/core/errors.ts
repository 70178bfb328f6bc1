/**
 * Every failure umbel knows about is a subclass of UmbelError. Errors are thrown where they arise
 * and mapped to exit codes / MCP results only at the faces (`toExitCode`, `formatError`).
 *
 * Exit-code table (documented in docs/cli-reference.md; the wait outcomes share it):
 *   0 ok / stop · 1 failure (state files included) · 2 usage · 3 no such worker · 4 conflict · 5 nothing to wait for · 70 internal
 *   120 limited · 121 rejected (a guardrail never held) · 122 provider-error · 123 idle · 124 timeout · 125 dead · 126 input
 *   127 a program umbel needs is missing or too old (the agent CLI, tmux, git, sh; a host's umbel of another protocol)
 *   69 a host that does not answer over ssh (sysexits' EX_UNAVAILABLE) · 130 aborted
 *   hosts install: 65 a checksum that does not match (EX_DATAERR) · 73 the host could not write the file (EX_CANTCREAT)
 */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  notFound: 3,
  conflict: 4,
  noTurn: 5,
  checksum: 65,
  unreachable: 69,
  internal: 70,
  cantCreate: 73,
  limited: 120,
  rejected: 121,
  providerError: 122,
  idle: 123,
  timeout: 124,
  dead: 125,
  input: 126,
  binaryNotFound: 127,
  aborted: 130,
} as const;

export type ErrorData = Record<string, unknown>;

export class UmbelError extends Error {
  readonly code: string = "failure";
  readonly exitCode: number = EXIT.failure;
  readonly data: ErrorData;

  constructor(message: string, data: ErrorData = {}, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.data = data;
  }
}

/** Bad flags, bad values, bad files: the caller must change the request. */
export class UsageError extends UmbelError {
  override readonly code = "usage";
  override readonly exitCode = EXIT.usage;
}

export class WorkerNotFoundError extends UmbelError {
  override readonly code = "not-found";
  override readonly exitCode = EXIT.notFound;
}

export class NameTakenError extends UmbelError {
  override readonly code = "name-taken";
  override readonly exitCode = EXIT.conflict;
}

/** The worker exited (or was killed) and cannot take the request. */
export class WorkerDeadError extends UmbelError {
  override readonly code = "dead";
  override readonly exitCode = EXIT.dead;
}

/** The CLI sits on a sign-in screen or other prompt that needs a person. */
export class InputRequiredError extends UmbelError {
  override readonly code = "input";
  override readonly exitCode = EXIT.input;
}

export class BinaryNotFoundError extends UmbelError {
  override readonly code = "binary-not-found";
  override readonly exitCode = EXIT.binaryNotFound;
}

/**
 * A program umbel itself runs (tmux, git for --worktree, sh for accept checks) is not on PATH, or
 * cannot be run: `data` names it and the fix for the platform (`core/doctor/programs.ts`). Exit 127, as
 * a shell's "command not found" and as a missing agent CLI: something must be installed.
 */
export class ProgramMissingError extends UmbelError {
  override readonly code = "program-missing";
  override readonly exitCode = EXIT.binaryNotFound;
}

/** A program umbel runs is older than it needs (tmux before 3.3): `data` has what was found and the fix. */
export class ProgramTooOldError extends UmbelError {
  override readonly code = "program-too-old";
  override readonly exitCode = EXIT.binaryNotFound;
}

/** spawn could not bring the TUI to ready (everything it made has been unwound). */
export class SpawnFailedError extends UmbelError {
  override readonly code = "spawn-failed";
}

/** send could not prove that the prompt was taken (the worker is left alive). */
export class DeliveryError extends UmbelError {
  override readonly code = "not-delivered";
}

/** A tmux call failed or did not answer in time. Never read as "no such session". */
export class TmuxError extends UmbelError {
  override readonly code = "tmux";
}

export class TmuxTimeoutError extends UmbelError {
  override readonly code = "tmux-timeout";
}

/** git failed (spawn --worktree, kill): `data` holds its argv, exit status and message. */
export class GitError extends UmbelError {
  override readonly code = "git";
}

/** A state file umbel cannot read (a corrupt meta.json): evidence to look at, never absence. */
export class StateError extends UmbelError {
  override readonly code: string = "state";
}

/**
 * A file or folder umbel cannot use (a directory where a file should be, permissions, a read-only
 * disk): `data` names the path, the errno and what to do (`core/common/fs-fault.ts` builds every one).
 */
export class FileAccessError extends StateError {
  override readonly code: string = "file-access";
}

/** The state root is not a usable directory of the caller's (`core/worker/state-root.ts`). */
export class StateRootError extends StateError {
  override readonly code: string = "state-root";
}

/** A session directory with no meta.json yet: a spawn in progress, or one that died half-way. */
export class WorkerIncompleteError extends StateError {}

/**
 * `spawn --account auto` found no account of the provider with headroom (every one exhausted or met
 * a limit not yet reset, or billed to an API key): exit 120 as a turn stopped at a usage limit, for
 * the same reason; `data` names the earliest reset and every account as placement saw it.
 */
export class NoHeadroomError extends UmbelError {
  override readonly code = "no-headroom";
  override readonly exitCode = EXIT.limited;
}

export class AbortedError extends UmbelError {
  override readonly code = "aborted";
  override readonly exitCode = EXIT.aborted;
}

/** Anything that is not an UmbelError is a bug: map it here, never let a stack trace out. */
export function toUmbelError(error: unknown): UmbelError {
  if (error instanceof UmbelError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new InternalError(message, {}, { cause: error });
}

export class InternalError extends UmbelError {
  override readonly code = "internal";
  override readonly exitCode = EXIT.internal;
}

export function toExitCode(error: unknown): number {
  return toUmbelError(error).exitCode;
}

/** One line for stderr: `umbel: <message>` plus a hint for bugs. */
export function formatError(error: unknown): string {
  const e = toUmbelError(error);
  const hint = e instanceof InternalError ? " (this is a bug in umbel; please report it)" : "";
  return `umbel: ${e.message}${hint}`;
}

/** The JSON shape of an error on stdout (`--json`) and in MCP results. */
export function renderErrorJson(error: unknown): {
  error: { code: string; class: string; message: string; exitCode: number; data: ErrorData };
} {
  const e = toUmbelError(error);
  return { error: { code: e.code, class: e.name, message: e.message, exitCode: e.exitCode, data: e.data } };
}

/** `wait` on a worker that was never sent a prompt: there is no turn to wait for (never a stop). */
export class NoTurnError extends UmbelError {
  override readonly code = "no-turn";
  override readonly exitCode = EXIT.noTurn;
}

/** `answer --input-id`: the worker no longer shows that prompt (answered, or another one took its place). */
export class PromptGoneError extends UmbelError {
  override readonly code = "prompt-gone";
  override readonly exitCode = EXIT.conflict;
}

/** `answer` with no prompt on the worker's screen: there is nothing to answer, nothing was pressed. */
export class NoPromptError extends UmbelError {
  override readonly code = "no-prompt";
  override readonly exitCode = EXIT.conflict;
}

/** The worker is mid-turn or showing a prompt; typing now would queue or answer something. */
export class WorkerBusyError extends UmbelError {
  override readonly code = "busy";
  override readonly exitCode = EXIT.conflict;
}

/** A host of config.toml that ssh cannot reach within its bound (docs/hosts.md); data: host, reason. */
export class HostUnreachableError extends UmbelError {
  override readonly code = "unreachable";
  override readonly exitCode = EXIT.unreachable;
}

/** A host's umbel speaks another protocol than this one (core/hosts/protocol.ts PROTOCOL); data names both. */
export class ProtocolMismatchError extends UmbelError {
  override readonly code = "protocol-mismatch";
  override readonly exitCode = EXIT.binaryNotFound;
}

/**
 * An error a host's umbel reported for a verb run there: its code and exit code kept as they came
 * (a remote worker not found is 3 here too), its message prefixed with the host.
 */
export class RemoteError extends UmbelError {
  override readonly code: string;
  override readonly exitCode: number;

  constructor(message: string, remote: { code: string; exitCode: number }, data: ErrorData = {}) {
    super(message, data);
    this.code = remote.code;
    this.exitCode = remote.exitCode;
  }
}

/**
 * `hosts install`: a file whose SHA-256 is not the one expected (a release file against its
 * SHA256SUMS, before anything is sent; or the bytes that reached the host); data: file, expected, actual.
 */
export class ChecksumMismatchError extends UmbelError {
  override readonly code = "checksum-mismatch";
  override readonly exitCode = EXIT.checksum;
}

/** `hosts install`: the host could not make the folder, write the file or move it into place; its old umbel is untouched. */
export class InstallFailedError extends UmbelError {
  override readonly code = "install-failed";
  override readonly exitCode = EXIT.cantCreate;
}
