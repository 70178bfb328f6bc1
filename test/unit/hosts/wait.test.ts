import { describe, expect, test } from "bun:test";
import { HostUnreachableError, RemoteError } from "../../../src/core/errors.ts";
import type { WaitResult } from "../../../src/core/fleet/wait-many.ts";
import { VERBS } from "../../../src/faces/verbs/table.ts";
import type { Verb } from "../../../src/faces/verbs/verb.ts";
import type { GuardProgress } from "../../../src/operations/guard/guard.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

/** wait on a host's workers: one remote wait each, all at once; a dropped link retried to the deadline. */

const verb = (name: string): Verb => VERBS.find((v) => v.name === name) as Verb;

const REFUSED = { stderr: "ssh: connect to host box port 22: Connection refused" };

function outcome(name: string, reason = "stop", exitCode = 0) {
  return { name, reason, exitCode, baseline: 2, elapsedMs: 40, evidence: { message: `done ${name}` } };
}

function world() {
  const w = createFakeWorld({ env: { PATH: "/usr/bin", HOME: "/home/u" } });
  w.files.set("/state/config.toml", '[hosts.box]\nssh = "ci@box"\n\n[hosts.far]\nssh = "ci@far"\n');
  return w;
}

async function wait(w: ReturnType<typeof world>, raw: Record<string, unknown>) {
  const v = verb("wait");
  return (await v.run(v.input.parse(raw), { deps: w.deps, terminal: false })) as WaitResult;
}

const inputOf = (run: { input: string } | undefined) =>
  (JSON.parse(run?.input ?? "{}") as { input: Record<string, unknown> }).input;

describe("wait box:NAME across a dropped link", () => {
  test("ssh fails twice (the link is down), then the host answers: the wait goes on and ends stop", async () => {
    const w = world();
    let calls = 0;
    w.onSsh = () => (++calls <= 2 ? REFUSED : { exitCode: 0, stdout: `${JSON.stringify(outcome("w"))}\n` });
    const result = await wait(w, { name: "box:w", timeout: "1m", after: 2 });
    expect(result).toMatchObject({ name: "box:w", reason: "stop", exitCode: 0 });
    expect(w.sshRuns).toHaveLength(3);
    // Backoff between the tries (0.5 s, then 1 s); each try is given what is left of the wait.
    expect(w.clock.slept).toBe(1_500);
    expect(w.sshRuns.map((r) => inputOf(r))).toEqual([
      { name: "w", timeout: "60000ms", after: 2 },
      { name: "w", timeout: "59500ms", after: 2 },
      { name: "w", timeout: "58500ms", after: 2 },
    ]);
  });

  test("a host gone for longer than the wait's timeout: HostUnreachableError naming host and worker (exit 69)", async () => {
    const w = world();
    w.onSsh = () => REFUSED;
    const error = await wait(w, { name: "box:w", timeout: "20s" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(HostUnreachableError);
    const e = error as HostUnreachableError;
    expect(e.exitCode).toBe(69);
    expect(e.message).toContain("host box was unreachable for the rest of the wait on box:w (20s, ");
    expect(e.message).toContain("wait box:w again");
    expect(e.data).toMatchObject({ host: "box", name: "w", reason: "gone", timeoutMs: 20_000 });
    expect(w.clock.slept).toBe(20_000);
  });

  test("an error of the remote wait (no such worker there) is not retried", async () => {
    const w = world();
    w.onSsh = () => ({
      exitCode: 3,
      stdout: `${JSON.stringify({ error: { code: "not-found", class: "WorkerNotFoundError", message: "no worker w", exitCode: 3, data: {} } })}\n`,
    });
    await expect(wait(w, { name: "box:w" })).rejects.toBeInstanceOf(RemoteError);
    expect(w.sshRuns).toHaveLength(1);
  });
});

describe("wait --any/--all over host workers", () => {
  test("--all box:a far:b: one remote wait each, at once, outcomes in the order given", async () => {
    const w = world();
    w.onSsh = (argv) =>
      argv.includes("ci@box")
        ? { exitCode: 0, stdout: `${JSON.stringify(outcome("a"))}\n` }
        : { exitCode: 124, stdout: `${JSON.stringify(outcome("b", "timeout", 124))}\n` };
    const result = await wait(w, { name: "box:a", names: ["far:b"], all: true, timeout: "5s" });
    expect(w.sshRuns.map((r) => [r.argv.at(-2), r.argv.at(-1), inputOf(r)])).toEqual([
      ["ci@box", "umbel wait --stdin-json --json", { name: "a", timeout: "5000ms" }],
      ["ci@far", "umbel wait --stdin-json --json", { name: "b", timeout: "5000ms" }],
    ]);
    expect(result.outcomes?.map((o) => [o.name, o.reason])).toEqual([
      ["box:a", "stop"],
      ["far:b", "timeout"],
    ]);
    expect(result).toMatchObject({ name: "far:b", reason: "timeout" });
    expect(verb("wait").exitCode(result)).toBe(124);
  });

  test("--any: the first to end; the other remote wait is stopped (its ssh signalled), pending", async () => {
    const w = world();
    let stopped = false;
    w.onSsh = (argv, _input, signal) =>
      argv.includes("ci@box")
        ? { exitCode: 0, stdout: `${JSON.stringify(outcome("a"))}\n` }
        : new Promise((resolve) =>
            signal?.addEventListener("abort", () => {
              stopped = true;
              resolve({ aborted: true, exitCode: null });
            }),
          );
    const result = await wait(w, { name: "far:b", names: ["box:a"], any: true });
    expect(stopped).toBe(true);
    expect(result).toMatchObject({ name: "box:a", reason: "stop", pending: ["far:b"] });
    expect(result.outcomes?.map((o) => o.name)).toEqual(["box:a"]);
  });

  test("a name of an undeclared host is a usage error before any wait starts", async () => {
    const w = world();
    await expect(wait(w, { name: "nohost:a", names: ["box:b"], all: true })).rejects.toMatchObject({
      code: "usage",
    });
    expect(w.sshRuns).toEqual([]);
  });
});

describe("wait box:NAME's progress (MCP's, when its client asked)", () => {
  const line = (elapsedMs: number, turn = "running") =>
    `${JSON.stringify({ progress: { elapsedMs, turn } })}\n`;
  const envelopeOf = (run: { input: string } | undefined) =>
    JSON.parse(run?.input ?? "{}") as Record<string, unknown>;

  async function waitSeeing(w: ReturnType<typeof world>, raw: Record<string, unknown>) {
    const v = verb("wait");
    const seen: GuardProgress[] = [];
    const result = (await v.run(v.input.parse(raw), {
      deps: w.deps,
      terminal: false,
      progress: (p) => seen.push(p as GuardProgress),
    })) as WaitResult;
    return { result, seen };
  }

  test("the envelope asks for it; each progress line is an update, the result line the outcome", async () => {
    const w = world();
    w.onSsh = async () => {
      await w.clock.advance(700);
      return { exitCode: 0, stdout: `${line(300)}${line(600, "input")}${JSON.stringify(outcome("w"))}\n` };
    };
    const { result, seen } = await waitSeeing(w, { name: "box:w", timeout: "1m" });
    expect(result).toMatchObject({ name: "box:w", reason: "stop", exitCode: 0 });
    expect(envelopeOf(w.sshRuns[0])).toMatchObject({
      progress: true,
      input: { name: "w", timeout: "60000ms" },
    });
    // Each update's elapsed is this wait's own (the fake's lines all land when its ssh ends).
    expect(seen).toEqual([
      { elapsedMs: 700, turn: "running" },
      { elapsedMs: 700, turn: "input" },
    ]);
  });

  test("no progress sink (the CLI): the envelope asks for none", async () => {
    const w = world();
    w.onSsh = () => ({ exitCode: 0, stdout: `${JSON.stringify(outcome("w"))}\n` });
    await wait(w, { name: "box:w" });
    expect(envelopeOf(w.sshRuns[0]).progress).toBeUndefined();
  });

  test("across a dropped link: the retried call's updates go on, their elapsed the whole wait's", async () => {
    const w = world();
    let calls = 0;
    w.onSsh = async () => {
      await w.clock.advance(2_000);
      return ++calls === 1
        ? { ...REFUSED, stdout: line(1_000) }
        : { exitCode: 0, stdout: `${line(500)}${JSON.stringify(outcome("w"))}\n` };
    };
    const { result, seen } = await waitSeeing(w, { name: "box:w", timeout: "1m" });
    expect(result).toMatchObject({ name: "box:w", reason: "stop" });
    expect(w.sshRuns.map((r) => envelopeOf(r).progress)).toEqual([true, true]);
    // 2 s of the first call, 0.5 s of backoff, 2 s of the second.
    expect(seen.map((p) => p.elapsedMs)).toEqual([2_000, 4_500]);
  });

  test("a host's umbel from before progress refuses the field: the wait is asked again without it", async () => {
    const w = world();
    w.onSsh = (_argv, input) =>
      JSON.parse(input).progress
        ? {
            exitCode: 2,
            stdout: `${JSON.stringify({ error: { code: "usage", class: "UsageError", message: '--stdin-json: stdin is not an envelope: Unrecognized key: "progress"', exitCode: 2, data: {} } })}\n`,
          }
        : { exitCode: 0, stdout: `${JSON.stringify(outcome("w"))}\n` };
    const { result, seen } = await waitSeeing(w, { name: "box:w", timeout: "1m" });
    expect(result).toMatchObject({ name: "box:w", reason: "stop" });
    expect(w.sshRuns.map((r) => envelopeOf(r).progress)).toEqual([true, undefined]);
    expect(w.clock.slept).toBe(0);
    expect(seen).toEqual([]);
  });

  test("a host's umbel that dies after its updates answered nothing: the remote failure, not a shape", async () => {
    const w = world();
    w.onSsh = () => ({ exitCode: 137, stdout: line(100), stderr: "Killed" });
    const error = await waitSeeing(w, { name: "box:w" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RemoteError);
    expect((error as RemoteError).message).toContain("answered nothing (exit 137)");
  });

  test("--all over a host's worker and another's: both hosts' updates come", async () => {
    const w = world();
    w.onSsh = (argv) =>
      argv.includes("ci@box")
        ? { exitCode: 0, stdout: `${line(10)}${JSON.stringify(outcome("a"))}\n` }
        : { exitCode: 0, stdout: `${line(20, "input")}${JSON.stringify(outcome("b"))}\n` };
    const { result, seen } = await waitSeeing(w, { name: "box:a", names: ["far:b"], all: true });
    expect(result.outcomes?.map((o) => o.name)).toEqual(["box:a", "far:b"]);
    expect(seen.map((p) => p.turn).sort()).toEqual(["input", "running"]);
  });
});
