import { FileAccessError } from "../errors.ts";

/**
 * The one mapping from a filesystem errno to a typed error: every adapter that reads or writes a
 * file turns a fault other than "missing where missing is an answer" into a FileAccessError that
 * names the path and says what to do (exit 1). A raw errno reached the user as exit 70 with the
 * libc text: 321 damaged state files and 21 broken state roots gave 35 of those (issue 11).
 */

/** What umbel was doing with the path, for the message: "cannot read …". */
export type FsAction = "read" | "write" | "create" | "remove" | "list" | "inspect" | "lock";

type Fault = { readonly what: string; readonly todo: string };

const FAULTS: Readonly<Record<string, Fault>> = {
  EACCES: { what: "permission denied", todo: "check its owner and mode (and those of its folders)" },
  EPERM: { what: "operation not permitted", todo: "check its owner, mode and attributes (lsattr)" },
  EISDIR: { what: "a directory is where a file should be", todo: "remove that directory" },
  ENOTDIR: { what: "a file is where a directory should be", todo: "remove that file from the path" },
  EROFS: { what: "the filesystem is read-only", todo: "set UMBEL_HOME to a writable folder" },
  ENOSPC: { what: "no space left on the device", todo: "free some space" },
  EDQUOT: { what: "the disk quota is exceeded", todo: "free some space" },
  ELOOP: { what: "too many levels of symbolic links", todo: "fix the link" },
  EIO: { what: "an input/output error", todo: "check the disk" },
  ENAMETOOLONG: { what: "a file name too long", todo: "set UMBEL_HOME to a shorter path" },
  EMFILE: { what: "too many open files", todo: "raise the open-file limit (ulimit -n)" },
  ENFILE: { what: "too many open files in the system", todo: "close some programs and retry" },
  ENOENT: { what: "it does not exist", todo: "it was removed while umbel used it: retry" },
  EBUSY: { what: "the file is busy", todo: "retry" },
  ENOTEMPTY: { what: "a directory is not empty", todo: "remove what is in it" },
  EEXIST: { what: "something is already there", todo: "remove it" },
};

/**
 * A symbolic link where umbel keeps a file or folder of its own (guards/, workflows/, worktrees/, a
 * log): refused, never written through — a link planted there sent umbel's writes anywhere.
 */
export function plantedLinkError(path: string, action: FsAction): FileAccessError {
  const todo = "remove the link (umbel makes that itself)";
  return new FileAccessError(
    `cannot ${action} ${path}: it is a symbolic link where umbel keeps its own; ${todo}`,
    {
      path,
      errno: "ELOOP",
      action,
      hint: todo,
    },
  );
}

/** An errno-carrying error from node:fs (`code` like "EACCES"); anything else is not a file fault. */
export function isFsFault(error: unknown): error is { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z0-9]+$/.test(code);
}

export function fsFaultError(
  fault: { readonly errno: string; readonly path: string; readonly action: FsAction },
  cause?: unknown,
): FileAccessError {
  const { what, todo } = FAULTS[fault.errno] ?? { what: "a filesystem error", todo: "check the path" };
  return new FileAccessError(
    `cannot ${fault.action} ${fault.path}: ${what} (${fault.errno}); ${todo}`,
    { path: fault.path, errno: fault.errno, action: fault.action, hint: todo },
    { cause },
  );
}
