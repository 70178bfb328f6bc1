import { describe, expect, test } from "bun:test";
import { sha256Hex } from "../../../src/core/common/sha256.ts";
import { ChecksumMismatchError, HostUnreachableError, UsageError } from "../../../src/core/errors.ts";
import { VERBS } from "../../../src/faces/verbs/table.ts";
import type { Verb } from "../../../src/faces/verbs/verb.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

/** `umbel hosts install NAME` on in-memory ports: which ssh calls run, in which order, with what. */

const hosts = VERBS.find((v) => v.name === "hosts") as Verb;
const BINARY = "the umbel binary";
const DOCTOR = { ok: true, checks: [{ id: "state", status: "ok", message: "/home/ci/.umbel: mode 0700" }] };

function world(probe = "uname Linux x86_64\nlibc glibc\npath /home/ci/.local/bin/umbel\nonpath no\n") {
  const w = createFakeWorld({ env: { PATH: "/usr/bin", HOME: "/home/u" } });
  w.files.set("/state/config.toml", '[hosts.box]\nssh = "ci@box"\n');
  w.files.set("/usr/bin/umbel", BINARY);
  Object.assign(w.deps.system, { selfCommand: () => ["/usr/bin/umbel"] });
  w.onSsh = (argv) => {
    const command = argv.at(-1) ?? "";
    if (command.includes("umbel-probe")) return { exitCode: 0, stdout: probe };
    if (command.includes("umbel-install"))
      return { exitCode: 0, stdout: "installed /home/ci/.local/bin/umbel\n" };
    return { exitCode: 0, stdout: `{"version":"0.1.0"}\n${JSON.stringify(DOCTOR)}\n` };
  };
  return w;
}

const install = (w: ReturnType<typeof world>, raw: Record<string, unknown>) =>
  hosts.run(hosts.input.parse({ action: "install", host: "box", ...raw }), { deps: w.deps, terminal: false });

async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("it did not fail");
}

describe("hosts install", () => {
  test("the running umbel when its target is the host's: probe, the file on stdin, then doctor", async () => {
    const w = world();
    const result = (await install(w, {})) as { install: Record<string, unknown> };
    expect(result.install).toMatchObject({
      host: "box",
      path: "~/.local/bin/umbel",
      resolved: "/home/ci/.local/bin/umbel",
      configured: false,
      onPath: false,
      target: "linux-x64",
      source: "running",
      file: "/usr/bin/umbel",
      sha256: sha256Hex(BINARY),
      bytes: BINARY.length,
      version: "0.1.0",
      previous: null,
      doctor: { exitCode: 0, result: DOCTOR, output: "" },
    });
    expect(hosts.exitCode(result)).toBe(0);
    const [probe, sent, doctor] = w.sshRuns;
    expect(w.sshRuns).toHaveLength(3);
    expect(probe?.argv.slice(-2)).toEqual([
      "ci@box",
      expect.stringContaining("umbel-probe ~/.local/bin/umbel"),
    ]);
    expect(sent?.inputFile).toBe("/usr/bin/umbel");
    expect(sent?.argv.at(-1)).toEndWith(`umbel-install ~/.local/bin/umbel ${sha256Hex(BINARY)}`);
    expect(sent?.argv).toContain("BatchMode=yes");
    expect(doctor?.argv.at(-1)).toContain("~/.local/bin/umbel doctor --json");
    expect(hosts.text(result)).toContain(
      'note: ~/.local/bin is not on the PATH of box\'s ssh commands, so umbel there does not find it: set umbel = "~/.local/bin/umbel" under [hosts.box] in config.toml',
    );
  });

  test("doctor's own exit code when it finds a problem there", async () => {
    const w = world();
    const inner = w.onSsh;
    w.onSsh = (argv, input, signal) =>
      (argv.at(-1) ?? "").includes("doctor --json")
        ? { exitCode: 1, stdout: `{"version":"0.1.0"}\n${JSON.stringify({ ...DOCTOR, ok: false })}\n` }
        : inner(argv, input, signal);
    expect(hosts.exitCode(await install(w, {}))).toBe(1);
  });

  test("another platform than this umbel's, no --from: a usage error naming both, nothing sent", async () => {
    const w = world("uname Linux aarch64\nlibc musl\npath /u/umbel\nonpath yes\n");
    const error = await failure(install(w, {}));
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toBe(
      "host box is linux-arm64-musl, this umbel is linux-x64: give --from DIR, a release directory (npm run release -- --targets linux-arm64-musl) holding umbel-linux-arm64-musl",
    );
    expect(w.sshRuns).toHaveLength(1);
  });

  test("--from DIR: the host's file, its sum against SHA256SUMS; a wrong one is refused before anything is sent", async () => {
    const w = world("uname Linux aarch64\nlibc glibc\npath /u/umbel\nonpath yes\n");
    w.files.set("/rel/umbel-linux-arm64", "arm64 build");
    w.files.set("/rel/SHA256SUMS", `${sha256Hex("arm64 build")}  umbel-linux-arm64\n`);
    const result = (await install(w, { from: "/rel" })) as { install: Record<string, unknown> };
    expect(result.install).toMatchObject({
      source: "release",
      file: "/rel/umbel-linux-arm64",
      target: "linux-arm64",
    });
    expect(w.sshRuns[1]?.inputFile).toBe("/rel/umbel-linux-arm64");

    const bad = world("uname Linux aarch64\nlibc glibc\npath /u/umbel\nonpath yes\n");
    bad.files.set("/rel/umbel-linux-arm64", "a tampered build");
    bad.files.set("/rel/SHA256SUMS", `${sha256Hex("arm64 build")}  umbel-linux-arm64\n`);
    const error = await failure(install(bad, { from: "/rel" }));
    expect(error).toBeInstanceOf(ChecksumMismatchError);
    expect(error).toMatchObject({ exitCode: 65 });
    expect((error as ChecksumMismatchError).data).toEqual({
      host: "box",
      file: "/rel/umbel-linux-arm64",
      expected: sha256Hex("arm64 build"),
      actual: sha256Hex("a tampered build"),
    });
    // The probe only: no install call.
    expect(bad.sshRuns).toHaveLength(1);
    expect(bad.sshRuns[0]?.inputFile).toBeUndefined();
  });

  test("--from a directory with no SHA256SUMS: a usage error before any ssh", async () => {
    const w = world();
    expect(await failure(install(w, { from: "/nowhere" }))).toBeInstanceOf(UsageError);
    expect(w.sshRuns).toHaveLength(0);
  });

  test("a host that does not answer: unreachable (69)", async () => {
    const w = world();
    w.onSsh = () => ({ exitCode: 255, stderr: "ssh: connect to host box port 22: Connection refused" });
    expect(await failure(install(w, {}))).toBeInstanceOf(HostUnreachableError);
  });

  test("install without a host, a host without install: usage", async () => {
    const w = world();
    const call = (raw: Record<string, unknown>) =>
      hosts.run(hosts.input.parse(raw), { deps: w.deps, terminal: false });
    expect(await failure(call({ action: "install" }))).toBeInstanceOf(UsageError);
    expect(await failure(call({ host: "box" }))).toBeInstanceOf(UsageError);
  });
});
