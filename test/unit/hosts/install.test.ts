import { describe, expect, test } from "bun:test";
import { RELEASE_TARGETS as BUILT } from "../../../scripts/release-targets.ts";
import {
  ChecksumMismatchError,
  HostUnreachableError,
  InstallFailedError,
  UsageError,
} from "../../../src/core/errors.ts";
import {
  doctorCommand,
  installCommand,
  installPath,
  probeCommand,
  readDoctorRun,
  readInstallProbe,
  readInstallRun,
} from "../../../src/core/hosts/install.ts";
import {
  findReleaseFile,
  parseSha256Sums,
  RELEASE_TARGETS,
  targetOf,
  targetOfUname,
} from "../../../src/core/hosts/install-target.ts";
import type { SshRun } from "../../../src/core/hosts/reply.ts";
import { splitShellWords } from "../../../src/core/hosts/shell-words.ts";

/** `umbel hosts install NAME`, its pure half: the host's target, SHA256SUMS, the remote scripts. */

const SHA = "a".repeat(64);
const run = (over: Partial<SshRun>): SshRun => ({
  exitCode: 0,
  stdout: "",
  stderr: "",
  timedOut: false,
  durationMs: 5,
  ...over,
});

describe("the host's release target", () => {
  test.each([
    ["Linux x86_64", false, false, "linux-x64"],
    ["Linux amd64", false, false, "linux-x64"],
    ["Linux aarch64", false, false, "linux-arm64"],
    ["Linux x86_64", true, false, "linux-x64-musl"],
    ["Linux aarch64", true, false, "linux-arm64-musl"],
    ["Darwin arm64", false, false, "darwin-arm64"],
    ["Darwin x86_64", false, false, "darwin-x64"],
    // A shell under Rosetta 2 on Apple silicon: the native build.
    ["Darwin x86_64", false, true, "darwin-arm64"],
    // musl is Linux's question only.
    ["Darwin arm64", true, false, "darwin-arm64"],
    ["  Linux x86_64\n", false, false, "linux-x64"],
  ])("%p musl=%p translated=%p → %p", (uname, musl, translated, target) => {
    expect(targetOfUname("box", { uname, musl, translated })).toBe(target as never);
  });

  test.each([["FreeBSD amd64"], ["Linux riscv64"], ["Linux i686"], [""]])("%p is refused, named", (uname) => {
    const error = (() => {
      try {
        targetOfUname("box", { uname, musl: false, translated: false });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toContain("host box is ");
    expect((error as UsageError).message).toContain("umbel ships for Linux and macOS on x86_64 and arm64");
  });

  test("this process's: platform, arch, libc; no release for another", () => {
    expect(targetOf("linux", "x64", false)).toBe("linux-x64");
    expect(targetOf("linux", "arm64", true)).toBe("linux-arm64-musl");
    expect(targetOf("darwin", "arm64", false)).toBe("darwin-arm64");
    expect(targetOf("win32", "x64", false)).toBeNull();
  });

  test("the targets are the ones npm run release builds", () => {
    expect([...RELEASE_TARGETS].sort() as string[]).toEqual(BUILT.map((t) => t.name).sort());
  });
});

describe("SHA256SUMS", () => {
  const sums = `${SHA}  umbel-linux-x64\n${"b".repeat(64)} *umbel-darwin-arm64\n${"c".repeat(64)}  install.sh\n`;

  test("sha256sum's two forms, by name", () => {
    expect(parseSha256Sums(sums, "/r/SHA256SUMS")).toEqual({
      "umbel-linux-x64": SHA,
      "umbel-darwin-arm64": "b".repeat(64),
      "install.sh": "c".repeat(64),
    });
  });

  test("a damaged line is a usage error at its file:line", () => {
    expect(() => parseSha256Sums(`${SHA}  umbel-linux-x64\nnot a sum\n`, "/r/SHA256SUMS")).toThrow(
      '/r/SHA256SUMS:2: not a "<sha256>  <name>" line: not a sum',
    );
  });

  test("the host's file and its sum; none for its target names the target and what the directory holds", () => {
    const listed = parseSha256Sums(sums, "/r/SHA256SUMS");
    expect(findReleaseFile("box", "linux-x64", "/r", listed)).toEqual({
      file: "umbel-linux-x64",
      sha256: SHA,
    });
    let error: unknown;
    try {
      findReleaseFile("box", "linux-arm64-musl", "/r", listed);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(UsageError);
    expect((error as UsageError).message).toBe(
      "host box is linux-arm64-musl: /r/SHA256SUMS lists no umbel-linux-arm64-musl (it holds umbel-linux-x64, umbel-darwin-arm64); build it with npm run release -- --targets linux-arm64-musl",
    );
    expect((error as UsageError).data).toEqual({
      host: "box",
      target: "linux-arm64-musl",
      dir: "/r",
      held: ["umbel-linux-x64", "umbel-darwin-arm64"],
    });
  });
});

describe("where it goes", () => {
  test.each([
    ["umbel", "~/.local/bin/umbel", false],
    ["umbel-dev", "~/.local/bin/umbel-dev", false],
    ["~/bin/umbel", "~/bin/umbel", true],
    ["/opt/umbel/bin/umbel", "/opt/umbel/bin/umbel", true],
  ])("umbel = %p → %p", (umbel, path, configured) => {
    expect(installPath(umbel)).toEqual({ path, configured });
  });
});

describe("the remote commands", () => {
  test("install: sh -c SCRIPT with the path and the hash as its operands, each one word for the shell", () => {
    const words = splitShellWords(installCommand("/opt/it's here/umbel", SHA), "test");
    expect(words[0]).toBe("sh");
    expect(words[1]).toBe("-c");
    expect(words.slice(3)).toEqual(["umbel-install", "/opt/it's here/umbel", SHA]);
    // The script: the temp file beside the target, the sum checked, chmod, one rename, the temp removed.
    expect(words[2]).toContain('tmp="$d/.umbel-install.$$"');
    expect(words[2]).toContain('mv -f "$tmp" "$t"');
    expect(words[2]).toContain("trap clean EXIT");
    expect(words[2]).toContain("trap 'clean; exit 130' HUP INT TERM");
    expect(words[2]).toContain("sha256sum");
    expect(words[2]).toContain("shasum -a 256");
  });

  test("a leading ~/ stays outside the quotes, for the remote shell to expand to its home", () => {
    expect(installCommand("~/my bin/umbel", SHA)).toEndWith(` umbel-install ~/'my bin/umbel' ${SHA}`);
    expect(probeCommand("~/.local/bin/umbel")).toEndWith(" umbel-probe ~/.local/bin/umbel");
    expect(doctorCommand("~/.local/bin/umbel")).toBe(
      "~/.local/bin/umbel --version --json </dev/null; ~/.local/bin/umbel doctor --json </dev/null",
    );
  });

  test("nothing long on the line: the scripts are short", () => {
    expect(installCommand("/a/umbel", SHA).length).toBeLessThan(1_200);
    expect(probeCommand("/a/umbel").length).toBeLessThan(700);
  });
});

describe("what the runs mean", () => {
  const probe = (stdout: string) => readInstallProbe("box", run({ stdout }), 15_000);

  test("the probe: target, path, PATH, the umbel there before", () => {
    expect(
      probe(
        'uname Linux x86_64\nlibc glibc\npath /home/ci/.local/bin/umbel\nonpath no\nprevious {"version":"0.1.0","protocol":1}\n',
      ),
    ).toEqual({
      target: "linux-x64",
      resolved: "/home/ci/.local/bin/umbel",
      onPath: false,
      previous: { version: "0.1.0", protocol: 1 },
    });
    expect(probe("uname Darwin x86_64\nlibc glibc\ntranslated 1\npath /u/umbel\nonpath yes\n")).toMatchObject(
      {
        target: "darwin-arm64",
        onPath: true,
        previous: null,
      },
    );
    // Something at the path that is no umbel (or one too old for --json): no previous version.
    expect(probe("uname Linux aarch64\nlibc musl\npath /u/umbel\nonpath yes\nprevious \n")).toMatchObject({
      target: "linux-arm64-musl",
      previous: null,
    });
  });

  test("ssh's 255 is unreachable (69); a timeout too", () => {
    expect(() =>
      readInstallProbe("box", run({ exitCode: 255, stderr: "Connection refused" }), 15_000),
    ).toThrow(HostUnreachableError);
    expect(() =>
      readInstallRun("box", run({ exitCode: null, timedOut: true }), 30_000, { path: "/u", sha256: SHA }),
    ).toThrow(HostUnreachableError);
  });

  test("a Ctrl-C during the transfer: aborted (130), saying nothing was installed", () => {
    expect(() =>
      readInstallRun("box", run({ exitCode: null, aborted: true }), 30_000, {
        path: "/u/umbel",
        sha256: SHA,
      }),
    ).toThrow(
      "aborted: the call to host box was stopped (nothing was installed, the old umbel is untouched)",
    );
  });

  test("the install: a mismatch there is ChecksumMismatchError (65), a failed write InstallFailedError (73)", () => {
    const sent = { path: "~/.local/bin/umbel", sha256: SHA };
    expect(readInstallRun("box", run({ stdout: "installed /u/umbel\n" }), 30_000, sent)).toBeUndefined();
    const got = "d".repeat(64);
    let mismatch: unknown;
    try {
      readInstallRun(
        "box",
        run({
          exitCode: 83,
          stderr: `umbel-install: checksum mismatch: the bytes received hash to ${got}\n`,
        }),
        30_000,
        sent,
      );
    } catch (e) {
      mismatch = e;
    }
    expect(mismatch).toBeInstanceOf(ChecksumMismatchError);
    expect(mismatch).toMatchObject({ code: "checksum-mismatch", exitCode: 65 });
    expect((mismatch as ChecksumMismatchError).data).toMatchObject({
      host: "box",
      expected: SHA,
      actual: got,
    });
    let failed: unknown;
    try {
      readInstallRun(
        "box",
        run({ exitCode: 80, stderr: "umbel-install: cannot make /ro/bin\n" }),
        30_000,
        sent,
      );
    } catch (e) {
      failed = e;
    }
    expect(failed).toBeInstanceOf(InstallFailedError);
    expect(failed).toMatchObject({ code: "install-failed", exitCode: 73 });
    expect((failed as Error).message).toBe(
      "host box: cannot make /ro/bin: nothing was installed at ~/.local/bin/umbel, the old umbel is untouched",
    );
  });

  test("the doctor: the new version, doctor's JSON and its exit code; text it could not read kept as it came", () => {
    const doctor = {
      ok: false,
      checks: [{ id: "config", status: "fail", message: "config.toml:3: an unknown key" }],
    };
    expect(
      readDoctorRun(
        "box",
        run({ exitCode: 1, stdout: `{"version":"0.2.0"}\n${JSON.stringify(doctor)}\n` }),
        60_000,
      ),
    ).toEqual({ version: "0.2.0", doctor: { exitCode: 1, result: doctor as never, output: "" } });
    expect(
      readDoctorRun(
        "box",
        run({ exitCode: 126, stderr: "cannot execute binary file: Exec format error\n" }),
        60_000,
      ),
    ).toEqual({
      version: null,
      doctor: { exitCode: 126, result: null, output: "cannot execute binary file: Exec format error" },
    });
  });
});
