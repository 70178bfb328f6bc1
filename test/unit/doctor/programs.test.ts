import { describe, expect, test } from "bun:test";
import { installFix, missingProgram, tmuxTooOld } from "../../../src/core/doctor/programs.ts";
import { EXIT, formatError, ProgramMissingError, ProgramTooOldError } from "../../../src/core/errors.ts";

/**
 * The programs umbel runs besides the agent CLIs (issue 21, item 4): one that is missing or too
 * old is named with doctor's fix for the platform and exits 127, never "a bug in umbel" (70).
 */
const TMUX = "tm" + "ux"; // test/unit/structure.test.ts reads a quoted tmux as an invocation

describe("a missing program", () => {
  test.each([
    [
      TMUX,
      "linux",
      `${TMUX} not found on PATH: umbel runs every worker in it; install ${TMUX} 3.3 or newer: apt-get install ${TMUX} (Debian, Ubuntu; dnf or apk elsewhere)`,
    ],
    [
      TMUX,
      "darwin",
      `${TMUX} not found on PATH: umbel runs every worker in it; install ${TMUX} 3.3 or newer: brew install ${TMUX}`,
    ],
    [
      "git",
      "linux",
      "git not found on PATH: spawn --worktree (and its kill) runs it; install git: apt-get install git (Debian, Ubuntu; dnf or apk elsewhere)",
    ],
    [
      "git",
      "darwin",
      "git not found on PATH: spawn --worktree (and its kill) runs it; install git: xcode-select --install, or brew install git",
    ],
    [
      "sh",
      "linux",
      "sh not found on PATH: accept checks run with sh -c; put the folder that holds sh (/bin) on PATH",
    ],
  ])("%s on %s", (program, platform, message) => {
    const error = missingProgram(program, platform, "ENOENT");
    expect(error).toBeInstanceOf(ProgramMissingError);
    expect(error.message).toBe(message);
    expect(error).toMatchObject({ code: "program-missing", exitCode: EXIT.binaryNotFound });
    expect(error.data).toMatchObject({ program, fix: installFix(program, platform) });
    expect(formatError(error)).not.toContain("bug");
  });

  test("one that is there but cannot be run says so", () => {
    expect(missingProgram("git", "linux", "EACCES").message).toStartWith(
      "git on PATH cannot be run (permission denied): spawn --worktree",
    );
  });

  test("a path that is not there is named as such", () => {
    expect(missingProgram("/opt/x/git", "linux", "ENOENT").message).toStartWith(
      "/opt/x/git does not exist: spawn --worktree",
    );
  });

  test("a program without an entry still gets a fix", () => {
    expect(missingProgram("frob", "linux", "ENOENT").message).toBe(
      "frob not found on PATH; install frob, or put the folder that holds it on PATH",
    );
  });
});

describe("a tmux older than 3.3", () => {
  test.each([
    [`${TMUX} 3.2a`, true],
    [`${TMUX} 2.9`, true],
    [`${TMUX} 3.3a`, false],
    [`${TMUX} 3.4`, false],
    [`${TMUX} next-3.6`, false],
    [`${TMUX} master`, false], // no version to read: umbel does not refuse what it cannot judge
  ])("%j → too old: %s", (version, old) => {
    expect(tmuxTooOld(version, "linux") !== null).toBe(old);
  });

  test("is a typed error with the version found and doctor's fix", () => {
    const error = tmuxTooOld(`${TMUX} 3.2a`, "darwin");
    expect(error).toBeInstanceOf(ProgramTooOldError);
    expect(error).toMatchObject({
      code: "program-too-old",
      exitCode: 127,
      message: `${TMUX} 3.2a is older than 3.3, which umbel needs; install ${TMUX} 3.3 or newer: brew install ${TMUX}`,
      data: { program: TMUX, found: "3.2a", need: "3.3" },
    });
  });
});
