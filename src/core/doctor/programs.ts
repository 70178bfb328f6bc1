import { ProgramMissingError, ProgramTooOldError } from "../errors.ts";
import { compareVersions, readVersion } from "./version.ts";

/**
 * The programs umbel runs besides the agent CLIs, what each is for and how to install it on this
 * platform: a missing or too old one is named with the fix `umbel doctor` gives, never reported as a
 * bug in umbel.
 */

/** A constant: test/unit/structure.test.ts reads a quoted tmux in a list or a call as an invocation. */
const TMUX = "tmux";

/**
 * tmux 3.3 is the oldest umbel is tested on: it is what Debian 12 ships, and its `display-message
 * -p '#{pane_dead_status}'` and bracketed `paste-buffer -p` are what spawn, wait and send rely on.
 */
export const TMUX_MIN = { parts: [3, 3], text: "3.3" } as const;

type Program = {
  /** What umbel runs it for (the message says why it matters). */
  readonly why: string;
  /** The command that installs it, by platform; a program no package provides has `fix` instead. */
  readonly install?: Readonly<Record<string, string>>;
  readonly fix?: string;
  /** The oldest version umbel works with. */
  readonly min?: string;
};

const LINUX_PACKAGE = (name: string) => `apt-get install ${name} (Debian, Ubuntu; dnf or apk elsewhere)`;

const PROGRAMS: Readonly<Record<string, Program>> = {
  tmux: {
    why: "umbel runs every worker in it",
    install: { linux: LINUX_PACKAGE(TMUX), darwin: `brew install ${TMUX}` },
    min: TMUX_MIN.text,
  },
  git: {
    why: "spawn --worktree (and its kill) runs it",
    install: { linux: LINUX_PACKAGE("git"), darwin: "xcode-select --install, or brew install git" },
  },
  sh: {
    why: "accept checks run with sh -c",
    fix: "put the folder that holds sh (/bin) on PATH",
  },
};

/** What to do about `program` on `platform` (process.platform): doctor's fix, the errors' too. */
export function installFix(program: string, platform: string): string {
  const known = Object.hasOwn(PROGRAMS, program) ? PROGRAMS[program] : undefined;
  if (known?.fix) return known.fix;
  const install = known?.install;
  if (!install) return `install ${program}, or put the folder that holds it on PATH`;
  const how = install[platform] ?? Object.values(install).join("; or ");
  return `install ${program}${known?.min ? ` ${known.min} or newer` : ""}: ${how}`;
}

/**
 * The error for a program that could not be started (`command`: a name looked up on PATH, or a
 * path): not there (ENOENT), or not runnable (EACCES).
 */
export function missingProgram(command: string, platform: string, errno: string): ProgramMissingError {
  const program = command.slice(command.lastIndexOf("/") + 1);
  const known = Object.hasOwn(PROGRAMS, program) ? PROGRAMS[program] : undefined;
  const fix = installFix(program, platform);
  const where = command.includes("/") ? command : `${program} on PATH`;
  const what =
    errno === "EACCES"
      ? `${where} cannot be run (permission denied)`
      : command.includes("/")
        ? `${command} does not exist`
        : `${program} not found on PATH`;
  return new ProgramMissingError(`${what}${known ? `: ${known.why}` : ""}; ${fix}`, {
    program,
    command,
    errno,
    fix,
  });
}

/**
 * The error for a tmux whose version banner (-V) names a version older than TMUX_MIN, else null (also
 * when no version can be read from it: `tmux master` is not refused).
 */
export function tmuxTooOld(banner: string, platform: string): ProgramTooOldError | null {
  const version = readVersion(banner);
  if (version === null || compareVersions(version.parts, TMUX_MIN.parts) >= 0) return null;
  const program = TMUX;
  const found = banner.trim().replace(/^tmux\s+/, "");
  const fix = installFix(program, platform);
  return new ProgramTooOldError(
    `${program} ${found} is older than ${TMUX_MIN.text}, which umbel needs; ${fix}`,
    { program, found, need: TMUX_MIN.text, fix },
  );
}
