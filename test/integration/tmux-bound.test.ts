import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test";
import { chmod, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createTmux } from "../../src/adapters/tmux.ts";
import { TmuxTimeoutError } from "../../src/core/errors.ts";
import { eventually } from "../helpers/sandbox.ts";

// bun's 5 s default is too short on 2 loaded cores; a preload's default reaches only the first
// file of a run (bun 1.4.5), so each file declares its own (test/unit/structure.test.ts).
setDefaultTimeout(60_000);

/**
 * A hung tmux whose own child holds its output pipe: killing the client alone leaves the pipe open
 * (measured before the fix: `umbel ls` with a 2 s bound still running after 25 s). The bound must
 * hold anyway, and nothing the client started may outlive it.
 */
let dir: string;
let pidFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-tmux-bound-"));
  pidFile = join(dir, "pid");
  // Records its pid (the process group the adapter makes), leaves a sleep holding stdout and
  // stderr, then hangs itself.
  const script = `#!/bin/sh\necho $$ > '${pidFile}'\nsleep 600 &\nsleep 601\n`;
  await writeFile(join(dir, "tmux"), script);
  await chmod(join(dir, "tmux"), 0o755);
});
afterAll(async () => {
  // Whatever the outcome, nothing this test started outlives it.
  const pgid = Number((await readFile(pidFile, "utf8").catch(() => "")).trim());
  if (pgid > 1 && livingMembers(pgid).length > 0) process.kill(-pgid, "SIGKILL");
  await rm(dir, { recursive: true, force: true });
});

test("a hung tmux whose child holds the output pipe: TmuxTimeoutError at the bound, and its whole group is gone", async () => {
  const tmux = createTmux({
    socket: "umbel-bound-test",
    hostEnv: { PATH: `${dir}:${process.env.PATH ?? "/usr/bin:/bin"}` },
    timeoutMs: 1000,
  });
  const started = performance.now();
  const error = await tmux.listSessions().catch((e: unknown) => e);
  const elapsed = performance.now() - started;
  expect(error).toBeInstanceOf(TmuxTimeoutError);
  expect((error as TmuxTimeoutError).code).toBe("tmux-timeout");
  expect(elapsed).toBeLessThan(2000);
  const pgid = Number((await readFile(pidFile, "utf8")).trim());
  expect(pgid).toBeGreaterThan(1);
  // A killed orphan stays a zombie until init reaps it (1.5–2 s on this VM): count only the living.
  await eventually(() => livingMembers(pgid).length === 0, 1000, `process group ${pgid} to die`);
}, 10_000);

/** The pids in process group `pgid` that are not zombies. */
function livingMembers(pgid: number): number[] {
  const ps = Bun.spawnSync(["ps", "-A", "-o", "pid=,pgid=,stat="]).stdout.toString();
  return ps
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .filter(([, group, stat]) => Number(group) === pgid && !stat?.startsWith("Z"))
    .map(([pid]) => Number(pid));
}
