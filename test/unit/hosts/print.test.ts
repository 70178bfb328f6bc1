import { describe, expect, test } from "bun:test";
import { HostUnreachableError, UsageError } from "../../../src/core/errors.ts";
import { PROTOCOL } from "../../../src/core/hosts/protocol.ts";
import { runPrintFromEnvelope, takeHostFlag } from "../../../src/faces/print/host.ts";
import type { PrintIo } from "../../../src/faces/print/io.ts";
import { runPrint } from "../../../src/faces/print/run.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

/** `umbel -p --host box`: the whole -p on the host, its argv and stdin in the envelope. */

function world(env: Record<string, string> = {}) {
  const w = createFakeWorld({ env: { PATH: "/usr/bin", HOME: "/home/u", ...env } });
  w.files.set("/state/config.toml", '[hosts.box]\nssh = "ci@box"\n');
  return w;
}

function io(w: ReturnType<typeof world>, stdin: string | null) {
  const out: string[] = [];
  const err: string[] = [];
  const value: PrintIo = {
    deps: w.deps,
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    readStdin: async () => stdin ?? "",
    stdinIsTty: stdin === null,
  };
  return { io: value, out, err };
}

describe("takeHostFlag", () => {
  test.each([
    [["-p", "--host", "box", "hi"], "box", ["-p", "hi"]],
    [["-p", "--host=box", "hi"], "box", ["-p", "hi"]],
    [["-p", "hi"], null, ["-p", "hi"]],
    [["-p", "--", "--host", "box"], null, ["-p", "--", "--host", "box"]],
  ])("%j → %p %j", (argv, host, rest) => {
    expect(takeHostFlag(argv)).toEqual({ host, argv: rest });
  });

  test.each([[["-p", "--host"]], [["-p", "--host", "--", "x"]], [["-p", "--host", "Box!"]]])(
    "%j is a usage error",
    (argv) => {
      expect(() => takeHostFlag(argv)).toThrow(UsageError);
    },
  );
});

describe("-p --host box", () => {
  test("its stdout comes through as it arrives, a piece at a time (stream-json's lines as the turn goes)", async () => {
    const w = world();
    w.onSsh = () => ({ exitCode: 0, stdout: '{"type":"system"}\n{"type":"result"}\n' });
    const { io: face, out } = io(w, null);
    expect(await runPrint(["-p", "--host", "box", "--output-format", "stream-json", "hi"], face)).toBe(0);
    expect(out).toEqual(['{"type":"system"}\n', '{"type":"result"}\n']);
  });

  test("one ssh runs umbel -p --stdin-json; the prompt and stdin only in the envelope; -p's output and exit code as they came", async () => {
    const w = world();
    w.onSsh = () => ({ exitCode: 0, stdout: "the answer\n", stderr: "a note\n" });
    const { io: face, out, err } = io(w, "piped context");
    const code = await runPrint(["-p", "--host", "box", "the secret plan", "--timeout", "2m"], face);
    expect(code).toBe(0);
    expect(out.join("")).toBe("the answer\n");
    expect(err.join("")).toBe("a note\n");
    const [run] = w.sshRuns;
    expect(run?.argv.slice(-2)).toEqual(["ci@box", "umbel -p --stdin-json"]);
    expect(run?.argv.join(" ")).not.toContain("secret");
    expect(JSON.parse(run?.input ?? "")).toEqual({
      protocol: PROTOCOL,
      input: {
        argv: ["-p", "the secret plan", "--timeout", "2m"],
        stdin: "piped context",
        stdinIsTty: false,
      },
      held: true,
    });
    // The bound: -p's start, its own --timeout, the link's margin.
    expect(run?.timeoutMs).toBe(60_000 + 120_000 + 30_000);
  });

  test("--env NAME: the value from this environment, inside the envelope (as spawn --host)", async () => {
    const w = world({ TOKEN: "canary-9" });
    w.onSsh = () => ({ exitCode: 0, stdout: "ok\n" });
    await runPrint(["-p", "--host", "box", "--env", "TOKEN", "--env", "K=V", "hi"], io(w, null).io);
    const [run] = w.sshRuns;
    expect(run?.argv.join(" ")).not.toContain("canary");
    expect(JSON.parse(run?.input ?? "").input.argv).toEqual([
      "-p",
      "--env",
      "TOKEN=canary-9",
      "--env",
      "K=V",
      "hi",
    ]);
    await expect(
      runPrint(["-p", "--host", "box", "--env", "UNSET", "hi"], io(w, null).io),
    ).rejects.toBeInstanceOf(UsageError);
  });

  test("exec --host box: the same envelope, face exec, its argv as given (--host out); the same remote line", async () => {
    const w = world();
    w.onSsh = () => ({ exitCode: 0, stdout: '{"type":"thread.started"}\n' });
    const { io: face, out } = io(w, null);
    const code = await runPrint(["--json", "--host", "box", "-C", "/srv", "the plan"], {
      ...face,
      face: "exec",
    });
    expect(code).toBe(0);
    expect(out.join("")).toBe('{"type":"thread.started"}\n');
    const [run] = w.sshRuns;
    expect(run?.argv.slice(-2)).toEqual(["ci@box", "umbel -p --stdin-json"]);
    expect(JSON.parse(run?.input ?? "").input).toEqual({
      face: "exec",
      argv: ["--json", "-C", "/srv", "the plan"],
      stdin: "",
      stdinIsTty: true,
    });
  });

  test("the remote -p's own exit code (a timeout: 124) is this one's", async () => {
    const w = world();
    w.onSsh = () => ({ exitCode: 124, stdout: "", stderr: "umbel: timed out\n" });
    expect(await runPrint(["-p", "--host", "box", "hi"], io(w, null).io)).toBe(124);
  });

  test("a host ssh cannot reach: HostUnreachableError (exit 69)", async () => {
    const w = world();
    await expect(runPrint(["-p", "--host", "box", "hi"], io(w, null).io)).rejects.toBeInstanceOf(
      HostUnreachableError,
    );
  });

  test("the host's side runs the argv and stdin of the envelope; one hop: no --host there", async () => {
    const envelope = (argv: string[]) =>
      `${JSON.stringify({ protocol: PROTOCOL, input: { argv, stdin: "ctx", stdinIsTty: false } })}\n`;
    const w = world();
    const seen: { argv: readonly string[]; stdin: string; face: string }[] = [];
    const run = async (argv: readonly string[], given: PrintIo, face: string) => {
      seen.push({ argv, stdin: await given.readStdin(), face });
      return 0;
    };
    expect(await runPrintFromEnvelope(io(w, envelope(["-p", "hi"])).io, run)).toBe(0);
    expect(seen).toEqual([{ argv: ["-p", "hi"], stdin: "ctx", face: "print" }]);
    const exec = `${JSON.stringify({ protocol: PROTOCOL, input: { face: "exec", argv: ["--json", "hi"], stdin: "", stdinIsTty: true } })}\n`;
    expect(await runPrintFromEnvelope(io(w, exec).io, run)).toBe(0);
    expect(seen[1]).toEqual({ argv: ["--json", "hi"], stdin: "", face: "exec" });
    await expect(
      runPrintFromEnvelope(io(w, envelope(["-p", "--host", "far", "hi"])).io, run),
    ).rejects.toBeInstanceOf(UsageError);
  });
});
