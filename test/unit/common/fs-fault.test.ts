import { describe, expect, test } from "bun:test";
import { fsFaultError, isFsFault } from "../../../src/core/common/fs-fault.ts";
import { FileAccessError, formatError, StateError, toExitCode } from "../../../src/core/errors.ts";

/** One mapping from errno to a typed error that names the path and says what to do (exit 1, never 70). */
describe("fsFaultError", () => {
  const path = "/home/u/.umbel/sessions/w/meta.json";
  test.each([
    ["EACCES", "read", "permission denied", "check its owner and mode"],
    ["EPERM", "write", "not permitted", "check its owner, mode and attributes"],
    ["EISDIR", "read", "a directory is where a file should be", "remove that directory"],
    ["ENOTDIR", "read", "a file is where a directory should be", "remove that file"],
    ["EROFS", "write", "read-only", "set UMBEL_HOME to a writable folder"],
    ["ENOSPC", "write", "no space left", "free some space"],
    ["EDQUOT", "write", "quota", "free some space"],
    ["ELOOP", "read", "symbolic links", "fix the link"],
    ["EIO", "read", "input/output error", "check the disk"],
    ["ENAMETOOLONG", "create", "name too long", "shorter"],
    ["EMFILE", "read", "too many open files", "ulimit -n"],
    ["ENOENT", "write", "does not exist", "removed while umbel used it"],
    ["EXDEV", "write", "EXDEV", "check the path"],
  ] as const)("%s on %s: the path, the errno and what to do", (errno, action, what, todo) => {
    const cause = Object.assign(new Error(`${errno}: raw`), { code: errno });
    const error = fsFaultError({ errno, path, action }, cause);
    expect(error).toBeInstanceOf(FileAccessError);
    expect(error).toBeInstanceOf(StateError);
    expect(error.code).toBe("file-access");
    expect(error.exitCode).toBe(1);
    expect(toExitCode(error)).toBe(1);
    expect(error.message).toStartWith(`cannot ${action} ${path}: `);
    expect(error.message).toContain(what);
    expect(error.message).toContain(`(${errno})`);
    expect(error.message).toContain(todo);
    expect(error.data).toMatchObject({ path, errno, action });
    expect(typeof error.data.hint).toBe("string");
    expect(error.cause).toBe(cause);
    expect(formatError(error)).not.toContain("bug");
  });

  test.each([
    ["an errno", Object.assign(new Error("x"), { code: "EACCES" }), true],
    ["a node error code", Object.assign(new Error("x"), { code: "ERR_INVALID_ARG_TYPE" }), false],
    ["a numeric code", Object.assign(new Error("x"), { code: 13 }), false],
    ["a TypeError", new TypeError("x"), false],
    ["null", null, false],
    ["a string", "EACCES", false],
  ])("isFsFault(%s) is %p: only an errno is a filesystem fault (anything else stays a bug)", (_, e, is) => {
    expect(isFsFault(e)).toBe(is);
  });
});
