import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../src/core/common/sha256.ts";
import { installCommand, probeCommand, readInstallProbe } from "../../src/core/hosts/install.ts";

setDefaultTimeout(20_000);

/**
 * `hosts install`'s remote scripts, run by real shells here as a host's login shell runs ssh's
 * command line (`$SHELL -c LINE`): the quoting survives, the rename is atomic, a mismatch leaves
 * the old file and no temp file behind.
 */

const SHELLS = ["sh", "bash", "dash"].filter((s) => Bun.which(s) !== null);
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "umbel-install-script-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function eventually(ok: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error(`no ${what} within 5s`);
    await Bun.sleep(5);
  }
}

function runLine(shell: string, line: string, stdinFile?: string) {
  const r = Bun.spawnSync([shell, "-c", line], {
    stdin: stdinFile ? Bun.file(stdinFile) : "ignore",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home") },
  });
  return { code: r.exitCode, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
}

describe.each(SHELLS)("under %s", (shell) => {
  test("installs into a folder it makes (its name quoted), 0755; a second install is a new file renamed over it", async () => {
    const target = join(dir, shell, "it's a bin", "umbel");
    const first = join(dir, `${shell}-first`);
    await writeFile(first, "first build\n");
    const r1 = runLine(shell, installCommand(target, sha256Hex("first build\n")), first);
    expect(r1.stderr).toBe("");
    expect(r1.stdout).toBe(`installed ${target}\n`);
    expect(r1.code).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("first build\n");
    expect(statSync(target).mode & 0o777).toBe(0o755);
    const inode = statSync(target).ino;

    const second = join(dir, `${shell}-second`);
    await writeFile(second, "second build\n");
    const r2 = runLine(shell, installCommand(target, sha256Hex("second build\n")), second);
    expect(r2.code).toBe(0);
    expect(readFileSync(target, "utf8")).toBe("second build\n");
    // A rename, never a rewrite in place: a running umbel keeps its old inode.
    expect(statSync(target).ino).not.toBe(inode);
    expect(readdirSync(join(dir, shell, "it's a bin"))).toEqual(["umbel"]);
  });

  test("bytes that do not hash to the sum given: exit 83, the old file as it was, no temp file", async () => {
    const target = join(dir, `${shell}-mismatch`, "umbel");
    const good = join(dir, `${shell}-good`);
    await writeFile(good, "good\n");
    expect(runLine(shell, installCommand(target, sha256Hex("good\n")), good).code).toBe(0);
    const r = runLine(shell, installCommand(target, sha256Hex("something else")), good);
    expect(r.stderr).toBe(
      `umbel-install: checksum mismatch: the bytes received hash to ${sha256Hex("good\n")}\n`,
    );
    expect(r.code).toBe(83);
    expect(readFileSync(target, "utf8")).toBe("good\n");
    expect(readdirSync(join(dir, `${shell}-mismatch`))).toEqual(["umbel"]);
  });

  test("the link gone mid-way: stdin ends early (exit 83) or the session is hung up; the temp file goes, the old file stays", async () => {
    const folder = join(dir, `${shell}-dropped`);
    const target = join(folder, "umbel");
    const old = join(dir, `${shell}-old`);
    await writeFile(old, "old\n");
    expect(runLine(shell, installCommand(target, sha256Hex("old\n")), old).code).toBe(0);
    for (const end of ["eof", "hangup"] as const) {
      const child = Bun.spawn([shell, "-c", installCommand(target, sha256Hex("the whole new build"))], {
        stdin: "pipe",
        stderr: "pipe",
        // bash sources ~/.bashrc when stdin is a socket (as under sshd; Bun's pipe is one): an empty HOME.
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: join(dir, "home") },
        detached: true,
      });
      child.stdin.write("the whole ");
      await child.stdin.flush();
      await eventually(() => readdirSync(folder).length === 2, "the temp file");
      if (end === "eof") child.stdin.end();
      // sshd ends a session's process group so; the script's cat dies with it.
      else process.kill(-child.pid, "SIGHUP");
      // A hang-up: bash exits 130 from the trap; dash ends by the signal itself (129), its EXIT trap run.
      const code = await child.exited;
      if (end === "eof") expect(code).toBe(83);
      else expect([129, 130]).toContain(code);
      // stderr's EOF: every process of the script is done, its trap's rm too (dash's exit can come first).
      await new Response(child.stderr).text();
      expect({ end, files: readdirSync(folder) }).toEqual({ end, files: ["umbel"] });
      expect(readFileSync(target, "utf8")).toBe("old\n");
    }
  });

  test("a folder it cannot make: exit 80, nothing written", async () => {
    const file = join(dir, `${shell}-a-file`);
    await writeFile(file, "");
    const r = runLine(shell, installCommand(join(file, "bin", "umbel"), sha256Hex("")), file);
    expect(r.code).toBe(80);
    expect(r.stderr).toContain(`umbel-install: cannot make ${file}/bin`);
  });

  test("the probe: this machine's target, the path with ~/ expanded, PATH, the umbel there", async () => {
    const r = runLine(shell, probeCommand("~/.local/bin/umbel"));
    expect(r.code).toBe(0);
    const probe = readInstallProbe("box", { ...r, exitCode: r.code, timedOut: false, durationMs: 1 }, 1_000);
    expect(probe.target).toBe(`linux-${process.arch}` as never);
    expect(probe.resolved).toBe(join(dir, "home", ".local/bin/umbel"));
    expect(probe.onPath).toBe(false);
    expect(probe.previous).toBeNull();
    expect(existsSync(join(dir, "home"))).toBe(false);
  });
});
