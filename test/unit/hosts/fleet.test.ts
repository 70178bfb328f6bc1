import { describe, expect, test } from "bun:test";
import { AbortedError } from "../../../src/core/errors.ts";
import { PROTOCOL } from "../../../src/core/hosts/protocol.ts";
import type { FleetStatus } from "../../../src/core/worker/status.ts";
import { VERBS } from "../../../src/faces/verbs/table.ts";
import type { Verb } from "../../../src/faces/verbs/verb.ts";
import { addWorker, createFakeWorld } from "../../helpers/fake-deps.ts";

/** The fleet view: ls and status without a name over this machine and every host, each bounded. */

const verb = (name: string): Verb => VERBS.find((v) => v.name === name) as Verb;

const CONFIG = '[hosts.box]\nssh = "ci@box"\n\n[hosts.far]\nssh = "ci@far"\n';

function row(name: string) {
  return {
    name,
    provider: "claude",
    state: "idle",
    cwd: "/srv/r",
    createdAt: "2026-01-01T00:00:00.000Z",
    sessionId: null,
    model: null,
    pid: 7,
    exit: null,
    reason: null,
    prompt: null,
    events: 3,
    guard: null,
  };
}

function world(config: string | null = CONFIG) {
  const w = createFakeWorld({ env: { PATH: "/usr/bin", HOME: "/home/u" } });
  if (config !== null) w.files.set("/state/config.toml", config);
  addWorker(w, "here");
  // box answers with its workers; far's ssh fails (the default: exit 255, connection refused).
  w.onSsh = (argv) =>
    argv.includes("ci@box")
      ? { exitCode: 0, stdout: `${JSON.stringify([row("rev")])}\n` }
      : { stderr: "ssh: connect to host far port 22: Connection refused" };
  return w;
}

async function ls(w: ReturnType<typeof world>, input: Record<string, unknown> = {}): Promise<FleetStatus> {
  const v = verb("ls");
  return (await v.run(v.input.parse(input), { deps: w.deps, terminal: false })) as FleetStatus;
}

describe("ls over the hosts of config.toml", () => {
  test("no host declared: no ssh call, the rows as ever (no host field, no hosts key)", async () => {
    const w = world(null);
    const result = await ls(w);
    expect(w.sshRuns).toEqual([]);
    expect(Object.keys(result)).toEqual(["workers"]);
    expect(result.workers.map((r) => [r.name, "host" in r])).toEqual([["here", false]]);
    expect(verb("ls").text(result)).toStartWith("NAME ");
  });

  test("each host once, at once, bounded to 10s: its workers as HOST:NAME; one that fails is an entry with its reason", async () => {
    const w = world();
    const result = await ls(w);
    expect(w.sshRuns.map((r) => [r.argv.at(-2), r.argv.at(-1), r.timeoutMs])).toEqual([
      ["ci@box", "umbel ls --stdin-json --json", 10_000],
      ["ci@far", "umbel ls --stdin-json --json", 10_000],
    ]);
    // One hop: the host is asked for its own workers only.
    expect(JSON.parse(w.sshRuns[0]?.input ?? "")).toEqual({
      protocol: PROTOCOL,
      input: { local: true },
      held: true,
    });
    expect(result.workers.map((r) => [r.host, r.name])).toEqual([
      [null, "here"],
      ["box", "box:rev"],
    ]);
    expect(result.hosts).toEqual(["box", "far"]);
    expect(result.unreachable).toEqual([
      {
        host: "far",
        state: "unreachable",
        code: "unreachable",
        reason: "host far is unreachable: ssh: connect to host far port 22: Connection refused",
      },
    ]);
    expect(verb("ls").exitCode(result)).toBe(0);
    // --json: the workers, then the host that gave none.
    expect((verb("ls").json(result) as { host: string | null }[]).map((e) => e.host)).toEqual([
      null,
      "box",
      "far",
    ]);
  });

  test("the text table: a HOST column, the unreachable host a row with its reason last", async () => {
    const text = verb("ls").text(await ls(world()));
    const lines = text.trimEnd().split("\n");
    expect(lines[0]).toMatch(/^HOST\s+NAME\s+STATE\s+PROVIDER\s+CWD$/);
    expect(lines[1]).toMatch(/^-\s+here\s+idle/);
    expect(lines[2]).toMatch(/^box\s+box:rev\s+idle\s+claude\s+\/srv\/r$/);
    expect(lines[3]).toMatch(/^far\s+-\s+unreachable\s+-\s+host far is unreachable: ssh: connect/);
  });

  test("a host past its bound, and one of another protocol: entries, never a failed ls", async () => {
    const w = world();
    w.onSsh = (argv) =>
      argv.includes("ci@box")
        ? { timedOut: true, exitCode: null }
        : {
            exitCode: 127,
            stdout: `${JSON.stringify({ error: { code: "protocol-mismatch", class: "ProtocolMismatchError", message: "this umbel speaks protocol 2, its caller 1", exitCode: 127, data: {} } })}\n`,
          };
    const result = await ls(w);
    expect(result.workers.map((r) => r.name)).toEqual(["here"]);
    expect(result.unreachable?.map((d) => [d.host, d.state, d.code, d.reason])).toEqual([
      ["box", "unreachable", "unreachable", "host box did not answer within 10s"],
      ["far", "host-error", "protocol-mismatch", "host far: this umbel speaks protocol 2, its caller 1"],
    ]);
  });

  test("--local: no ssh call, no host column", async () => {
    const w = world();
    const result = await ls(w, { local: true });
    expect(w.sshRuns).toEqual([]);
    expect(result).toEqual({ workers: [expect.objectContaining({ name: "here" })] });
  });

  test("status without a name is the same view", async () => {
    const w = world();
    const v = verb("status");
    const result = (await v.run(v.input.parse({}), { deps: w.deps, terminal: false })) as FleetStatus;
    expect(result.workers.map((r) => r.name)).toEqual(["here", "box:rev"]);
    expect(result.unreachable?.map((d) => d.host)).toEqual(["far"]);
  });

  test("Ctrl-C during the view ends it aborted, never an unreachable row", async () => {
    const w = world();
    w.onSsh = () => ({ aborted: true, exitCode: null });
    await expect(ls(w)).rejects.toBeInstanceOf(AbortedError);
  });
});
