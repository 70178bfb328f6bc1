import { describe, expect, test } from "bun:test";
import {
  AbortedError,
  HostUnreachableError,
  ProtocolMismatchError,
  RemoteError,
} from "../../../src/core/errors.ts";
import { probeCommand, readProbe } from "../../../src/core/hosts/probe.ts";
import { PROTOCOL } from "../../../src/core/hosts/protocol.ts";
import { checkProtocol, readReply, type SshRun } from "../../../src/core/hosts/reply.ts";

const run = (over: Partial<SshRun>): SshRun => ({
  exitCode: 0,
  stdout: "",
  stderr: "",
  timedOut: false,
  durationMs: 4,
  ...over,
});

function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (error) {
    return error as Error;
  }
  throw new Error("did not throw");
}

describe("readReply: the remote umbel's answer", () => {
  test("a result and its exit code (a wait's outcome is a result, whatever its code)", () => {
    expect(readReply("box", run({ stdout: '{"name":"w","baseline":3}\n' }), 1000)).toEqual({
      value: { name: "w", baseline: 3 },
      exitCode: 0,
    });
    expect(readReply("box", run({ exitCode: 124, stdout: '{"reason":"timeout"}\n' }), 1000).exitCode).toBe(
      124,
    );
  });

  test("ssh's own failure (255) and a call past its bound are HostUnreachableError, exit 69", () => {
    const refused = thrown(() =>
      readReply(
        "box",
        run({ exitCode: 255, stderr: "ssh: connect to host 127.0.0.1 port 2222: Connection refused\n" }),
        1000,
      ),
    );
    expect(refused).toBeInstanceOf(HostUnreachableError);
    expect(refused).toMatchObject({
      code: "unreachable",
      exitCode: 69,
      message: "host box is unreachable: ssh: connect to host 127.0.0.1 port 2222: Connection refused",
      data: { host: "box", reason: "ssh: connect to host 127.0.0.1 port 2222: Connection refused" },
    });
    const slow = thrown(() => readReply("box", run({ timedOut: true, exitCode: null }), 30_000));
    expect(slow).toMatchObject({
      code: "unreachable",
      exitCode: 69,
      data: { host: "box", reason: "timeout" },
    });
    expect(slow.message).toBe("host box did not answer within 30s");
  });

  test("a remote error keeps its code and exit code, with the host in front and in data", () => {
    const line = JSON.stringify({
      error: {
        code: "not-found",
        class: "WorkerNotFoundError",
        message: "no worker w",
        exitCode: 3,
        data: { name: "w" },
      },
    });
    const error = thrown(() => readReply("box", run({ exitCode: 3, stdout: `${line}\n` }), 1000));
    expect(error).toBeInstanceOf(RemoteError);
    expect(error).toMatchObject({
      code: "not-found",
      exitCode: 3,
      message: "box: no worker w",
      data: { name: "w", host: "box", remoteClass: "WorkerNotFoundError" },
    });
  });

  test("the remote's protocol refusal, and an umbel that knows no --stdin-json, are ProtocolMismatchError", () => {
    const mismatch = JSON.stringify({
      error: {
        code: "protocol-mismatch",
        class: "ProtocolMismatchError",
        message: "this umbel speaks protocol 2, its caller 1",
        exitCode: 127,
        data: { local: 1, remote: 2 },
      },
    });
    expect(thrown(() => readReply("box", run({ exitCode: 127, stdout: mismatch }), 1000))).toBeInstanceOf(
      ProtocolMismatchError,
    );
    const old = JSON.stringify({
      error: {
        code: "usage",
        class: "UsageError",
        message: "unknown flag --stdin-json",
        exitCode: 2,
        data: {},
      },
    });
    const error = thrown(() => readReply("box", run({ exitCode: 2, stdout: old }), 1000));
    expect(error).toBeInstanceOf(ProtocolMismatchError);
    expect(error).toMatchObject({ code: "protocol-mismatch", exitCode: 127 });
    // What umbel 0.1.0 answers `send --stdin-json --json` (citty misses NAME before the flag check).
    const missing = JSON.stringify({
      error: {
        code: "usage",
        class: "UsageError",
        message: "Missing required positional argument: NAME",
        exitCode: 2,
        data: { command: "send" },
      },
    });
    expect(thrown(() => readReply("box", run({ exitCode: 2, stdout: missing }), 1000))).toBeInstanceOf(
      ProtocolMismatchError,
    );
  });

  test("no umbel there (127, nothing on stdout) and an answer that is not JSON", () => {
    expect(
      thrown(() => readReply("box", run({ exitCode: 127, stderr: "sh: 1: umbel: not found" }), 1000)),
    ).toMatchObject({ code: "remote-umbel-missing", exitCode: 127 });
    expect(thrown(() => readReply("box", run({ exitCode: 0, stdout: "hello\n" }), 1000))).toMatchObject({
      code: "remote-failure",
      exitCode: 1,
    });
  });

  test("a call the caller's signal stopped (Ctrl-C, an MCP cancel) is aborted (130), the worker untouched", () => {
    const error = thrown(() => readReply("box", run({ aborted: true, exitCode: null }), 1000));
    expect(error).toBeInstanceOf(AbortedError);
    expect(error).toMatchObject({ exitCode: 130, data: { host: "box" } });
  });

  test("checkProtocol names both versions", () => {
    expect(() => checkProtocol("box", PROTOCOL, "0.1.0")).not.toThrow();
    const error = thrown(() => checkProtocol("box", undefined, "0.0.9"));
    expect(error).toBeInstanceOf(ProtocolMismatchError);
    expect(error.message).toBe(
      `host box: its umbel 0.0.9 speaks protocol none, this umbel speaks ${PROTOCOL}: install the same umbel on both`,
    );
    expect((error as ProtocolMismatchError).data).toEqual({
      host: "box",
      local: PROTOCOL,
      remote: null,
      remoteVersion: "0.0.9",
    });
  });
});

describe("hosts' probe", () => {
  const host = { name: "box", ssh: "ci@box" };
  const providers = ["claude", "codex"];

  test("one ssh call: version, ls and doctor, one JSON line each", () => {
    expect(probeCommand("~/bin/umbel")).toBe(
      "~/bin/umbel --version --json; ~/bin/umbel ls --local --json; ~/bin/umbel doctor --json",
    );
  });

  test("a reachable host: its version, protocol, CLIs (doctor's checks of them) and workers", () => {
    const stdout = [
      JSON.stringify({ version: "0.1.0", protocol: PROTOCOL, commit: "c" }),
      JSON.stringify([
        {
          name: "w",
          provider: "claude",
          state: "idle",
          cwd: "/r",
          createdAt: "2026-12-03T10:00:00Z",
          sessionId: null,
          model: null,
          pid: 7,
          exit: null,
          reason: null,
          prompt: null,
          events: 2,
          guard: null,
        },
      ]),
      JSON.stringify({
        ok: true,
        checks: [
          { id: "state", status: "ok", message: "mode 0700" },
          { id: "claude", status: "ok", message: "claude 2.1.332" },
        ],
      }),
    ].join("\n");
    const row = readProbe(host, run({ stdout }), 10_000, providers);
    expect(row).toMatchObject({
      name: "box",
      ssh: "ci@box",
      reachable: true,
      version: "0.1.0",
      protocol: PROTOCOL,
      clis: [{ id: "claude", status: "ok", message: "claude 2.1.332" }],
      error: null,
    });
    expect(row.workers.map((w) => w.name)).toEqual(["w"]);
  });

  test("unreachable, timed out, no umbel, another protocol: a row that says so", () => {
    expect(
      readProbe(host, run({ exitCode: 255, stderr: "Connection refused" }), 10_000, providers),
    ).toMatchObject({
      reachable: false,
      error: { code: "unreachable", message: "host box is unreachable: Connection refused" },
    });
    expect(readProbe(host, run({ timedOut: true, exitCode: null }), 10_000, providers).error).toEqual({
      code: "unreachable",
      message: "host box did not answer within 10s",
    });
    expect(readProbe(host, run({ exitCode: 127 }), 10_000, providers)).toMatchObject({
      reachable: true,
      error: { code: "remote-umbel-missing" },
    });
    const old = readProbe(host, run({ stdout: '{"version":"0.0.9"}\n[]\n{}' }), 10_000, providers);
    expect(old).toMatchObject({
      reachable: true,
      version: "0.0.9",
      protocol: null,
      error: { code: "protocol-mismatch" },
    });
  });
});
