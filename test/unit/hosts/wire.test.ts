import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { UsageError } from "../../../src/core/errors.ts";
import {
  quoteForShell,
  remoteCommand,
  renderEnvelope,
  resolveWireEnv,
  sshArgv,
  toWire,
  verbCommand,
} from "../../../src/core/hosts/command.ts";
import { PROTOCOL } from "../../../src/core/hosts/protocol.ts";
import { formatWorkerRef, parseWorkerRef, workerRef } from "../../../src/core/hosts/schema.ts";
import { splitShellWords } from "../../../src/core/hosts/shell-words.ts";
import { Duration, WaitInput, WorkerName } from "../../../src/core/schemas.ts";

describe("splitShellWords (UMBEL_SSH_COMMAND, as git splits GIT_SSH_COMMAND)", () => {
  test.each([
    ["ssh", ["ssh"]],
    ["  ssh  -F  cfg ", ["ssh", "-F", "cfg"]],
    ["ssh -F '/a b/c'", ["ssh", "-F", "/a b/c"]],
    ['ssh -o "ProxyCommand=nc %h %p"', ["ssh", "-o", "ProxyCommand=nc %h %p"]],
    ['ssh -o "a\\"b\\\\c\\d"', ["ssh", "-o", 'a"b\\c\\d']],
    ["ssh a\\ b", ["ssh", "a b"]],
    ["ssh '' x", ["ssh", "", "x"]],
    ["ssh 'it'\\''s'", ["ssh", "it's"]],
    ["ssh $HOME ~/x", ["ssh", "$HOME", "~/x"]],
  ])("%j → %j", (text, words) => {
    expect(splitShellWords(text, "UMBEL_SSH_COMMAND")).toEqual(words);
  });

  test.each([["ssh 'open"], ['ssh "open'], ["ssh \\"], [""], ["   "]])("%j is a usage error", (text) => {
    expect(() => splitShellWords(text, "UMBEL_SSH_COMMAND")).toThrow(UsageError);
  });
});

describe("the ssh argv of one remote call", () => {
  test("batch mode, a short master under the state root, a connect timeout, -- before the destination", () => {
    const argv = sshArgv({
      ssh: ["ssh", "-F", "/t/cfg"],
      destination: "-oProxyCommand=x",
      controlDir: "/s/ssh",
      command: verbCommand("umbel", "send"),
    });
    expect(argv).toEqual([
      "ssh",
      "-F",
      "/t/cfg",
      "-T",
      "-o",
      "BatchMode=yes",
      "-o",
      "ControlMaster=auto",
      "-o",
      "ControlPath=/s/ssh/%C",
      "-o",
      "ControlPersist=60",
      "-o",
      "ConnectTimeout=5",
      "-o",
      "ServerAliveInterval=10",
      "-o",
      "ServerAliveCountMax=3",
      "--",
      "-oProxyCommand=x",
      "umbel send --stdin-json --json",
    ]);
  });

  test("tty: -t in -T's place (attach: a terminal on the host), every other option the same", () => {
    const call = { ssh: ["ssh"], destination: "box", controlDir: "/s/ssh", command: "umbel attach w" };
    const plain = sshArgv(call);
    const tty = sshArgv({ ...call, tty: true });
    expect(plain[1]).toBe("-T");
    expect(tty[1]).toBe("-t");
    expect(tty.slice(2)).toEqual(plain.slice(2));
    expect(tty).toContain("BatchMode=yes");
    expect(tty).toContain("ControlPath=/s/ssh/%C");
    expect(sshArgv({ ...call, tty: false })).toEqual(plain);
  });

  test.each([
    ["umbel", ["ls", "--json"], "umbel ls --json"],
    ["~/.local/bin/umbel", ["ls"], "~/.local/bin/umbel ls"],
    ["~/my bin/umbel", ["ls"], "~/'my bin/umbel' ls"],
    ["/opt/u; rm -rf /", ["ls"], "'/opt/u; rm -rf /' ls"],
    ["/x", ["it's"], "/x 'it'\\''s'"],
  ])("remoteCommand(%j, %j) = %j", (umbel, words, line) => {
    expect(remoteCommand(umbel, words)).toBe(line);
  });

  test("quoteForShell: plain words as is, the rest single-quoted", () => {
    expect(quoteForShell("a-b_c.d/e=f:g@h%i+j")).toBe("a-b_c.d/e=f:g@h%i+j");
    expect(quoteForShell("")).toBe("''");
    expect(quoteForShell("$(x)")).toBe("'$(x)'");
  });
});

describe("the envelope on stdin", () => {
  test("the protocol and the input, one line", () => {
    expect(JSON.parse(renderEnvelope({ name: "w", prompt: "hi\nthere" }))).toEqual({
      protocol: PROTOCOL,
      input: { name: "w", prompt: "hi\nthere" },
      held: true,
    });
  });

  test("a parsed duration goes as ms (the remote schema reads a bare number as seconds)", () => {
    const parsed = WaitInput.parse({ name: "w", timeout: "2m", after: 7, maxTokens: 10 });
    const wire = toWire(WaitInput.shape, parsed);
    expect(wire).toEqual({ name: "w", timeout: "120000ms", after: 7, maxTokens: 10 });
    expect(WaitInput.parse(wire)).toEqual(parsed);
    expect(toWire({ d: Duration }, { d: 1500, gone: undefined })).toEqual({ d: "1500ms" });
  });

  test("--env NAME takes the caller's value; a literal stays; an unset one is refused", () => {
    expect(resolveWireEnv({ A: "1", B: { fromEnv: "SECRET" } }, { SECRET: "s3" })).toEqual({
      A: "1",
      B: "s3",
    });
    expect(() => resolveWireEnv({ B: { fromEnv: "NOPE" } }, {})).toThrow(
      "--env B: NOPE is not set in umbel's environment",
    );
  });
});

describe("HOST:NAME", () => {
  test("parse and format", () => {
    expect(parseWorkerRef("rev")).toEqual({ host: null, name: "rev" });
    expect(parseWorkerRef("box:rev")).toEqual({ host: "box", name: "rev" });
    expect(formatWorkerRef("box", "rev")).toBe("box:rev");
  });

  const Ref = workerRef(WorkerName, "Worker name");
  test.each([
    ["rev", true],
    ["box:rev", true],
    ["Box:rev", false],
    ["box:Rev", false],
    [":rev", false],
    ["box:", false],
    ["a:b:c", false],
  ])("%j valid: %p", (given, ok) => {
    expect(Ref.safeParse(given).success).toBe(ok);
  });

  test("the message is the part's own rule", () => {
    expect(Ref.safeParse("Box:rev").error?.issues[0]?.message).toContain("a host name is");
    expect(Ref.safeParse("box:-x").error?.issues[0]?.message).toContain("a worker name is");
    expect(z.object({ name: Ref }).shape.name.description).toContain("HOST:NAME");
  });
});
