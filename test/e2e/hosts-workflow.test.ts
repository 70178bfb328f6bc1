import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { connectUmbelMcp, type ToolResult } from "../helpers/mcp-client.ts";
import { sampleArgv, stdinJsonProcesses } from "../helpers/proc.ts";
import { createSandbox, eventually, type Sandbox, UMBEL } from "../helpers/sandbox.ts";
import { createHostPair, type HostPair, hasSshd, type Sshd } from "../helpers/sshd.ts";

// A real sshd, two umbels and fake claudes on real tmux, a workflow over both: tens of seconds.
setDefaultTimeout(90_000);

/**
 * A workflow worker's `host:` (docs/workflows.md, docs/hosts.md#workflows) over a real OpenSSH
 * server on loopback (test/helpers/sshd.ts, as test/e2e/hosts.test.ts): one worker here, one on
 * the host, the second's prompt made of the first's answer.
 */

const SECRET = `wf-secret-${crypto.randomUUID()}`;
const CANARY = `wf-prompt-${crypto.randomUUID()}`;

let pair: HostPair;
let sshd: Sshd;
let local: Sandbox;
let remote: Sandbox;

beforeAll(async () => {
  if (!hasSshd()) throw new Error("no sshd: apt-get install openssh-server (.ci/run installs it)");
  pair = await createHostPair({ localEnv: { SECRET_TOKEN: SECRET } });
  ({ sshd, local, remote } = pair);
  // A host ssh cannot resolve: unreachable (ssh exits 255) at once.
  appendFileSync(join(local.root, "config.toml"), '[hosts.gone]\nssh = "gone.invalid"\n');
});

afterAll(async () => {
  await pair?.dispose();
});

const lastJson = (text: string) =>
  JSON.parse(text.trim().split("\n").at(-1) ?? "") as Record<string, unknown>;

const TWO_HOSTS = (host: string) => `workers:
  here: {}
  far:
    host: ${host}
    env: { TOKEN: { fromEnv: SECRET_TOKEN } }
steps:
  - { id: pick, run: here, prompt: "fake:reply otter", outputs: { animal: answer } }
  - id: poem
    run: far
    needs: [pick]
    prompt: "fake:reply A poem about the {{ steps.pick.outputs.animal }} ${CANARY}"
    accept: test -f on-the-host
    outputs: { poem: answer }
`;

/** The remote umbel's `wait --stdin-json` processes, from /proc. */
const remoteWaits = () => stdinJsonProcesses("wait", remote.root);

describe("a workflow with one local and one remote worker", () => {
  test("the host's step gets the local step's answer; its worker runs on the host, HOST:NAME, and goes at the end", async () => {
    writeFileSync(join(local.work, "two.yaml"), TWO_HOSTS("box"));
    // The accept check runs on the host, in the worker's cwd there: the file is only there.
    writeFileSync(join(remote.work, "on-the-host"), "");

    const plan = await local.umbel(["run", "two.yaml", "--dry-run"]);
    expect(plan.stdout).toContain(`far  the host's default · env: TOKEN  on box in the host's default`);
    expect(plan.code).toBe(0);

    const { result: r, argvs } = await sampleArgv(() => local.umbel(["run", "two.yaml", "--keep", "--json"]));
    const summary = lastJson(r.stdout);
    expect(summary).toMatchObject({
      status: "done",
      exitCode: 0,
      outputs: { pick: { animal: "otter" }, poem: { poem: `A poem about the otter ${CANARY}` } },
    });
    expect(r.code).toBe(0);
    // The run's record names the host's session HOST:NAME.
    const state = JSON.parse(readFileSync(join(String(summary.stateDir), "state.json"), "utf8")) as {
      sessions: string[];
      steps: Record<string, { session: string }>;
    };
    expect(state.sessions).toEqual([
      expect.stringMatching(/^here-[0-9a-f]{6}-1$/),
      expect.stringMatching(/^box:far-[0-9a-f]{6}-2$/),
    ]);
    expect(state.steps.poem?.session).toBe(state.sessions[1] as string);
    // The worker was the host's (its tombstone there, killed at the end of the run), none of it here.
    const onHost = JSON.parse((await remote.umbel(["ls", "--json"])).stdout) as {
      name: string;
      state: string;
    }[];
    expect(onHost).toEqual([expect.objectContaining({ name: state.sessions[1]?.slice(4), state: "killed" })]);
    const here = JSON.parse((await local.umbel(["ls", "--local", "--json"])).stdout) as { name: string }[];
    expect(here.map((w) => w.name)).toEqual([state.sessions[0] as string]);
    // Neither the prompt nor the env value on any argv of this machine (both sides' processes).
    for (const argv of argvs) {
      expect(argv).not.toContain(SECRET);
      expect(argv).not.toContain(CANARY);
    }
    expect([...argvs].some((a) => a.includes("remote-umbel spawn --stdin-json --json"))).toBe(true);
    expect((await local.umbel(["prune"])).code).toBe(0);
    expect((await remote.umbel(["prune"])).code).toBe(0);

    // Without --keep the host's worker is removed there too, and the result lists it as HOST:NAME.
    const again = await local.umbel(["run", "two.yaml", "--json"]);
    const purged = lastJson(again.stdout).purged as string[];
    expect(purged).toEqual([expect.stringMatching(/^here-/), expect.stringMatching(/^box:far-/)]);
    expect(again.code).toBe(0);
    expect((await remote.umbel(["ls", "--json"])).stdout).toBe("[]\n");
  });

  test("the accept check runs on the host: a file only here fails it there", async () => {
    writeFileSync(join(local.work, "only-here"), "");
    writeFileSync(
      join(local.work, "check.yaml"),
      TWO_HOSTS("box").replace("test -f on-the-host", "test -f only-here").concat("    maxAttempts: 1\n"),
    );
    const r = await local.umbel(["run", "check.yaml", "--json"]);
    expect(lastJson(r.stdout)).toMatchObject({
      status: "failed",
      failure: {
        step: "poem",
        outcome: "rejected",
        exitCode: 121,
        session: expect.stringMatching(/^box:far-/),
      },
    });
    expect(r.code).toBe(121);
    expect((await local.umbel(["prune"])).code).toBe(0);
    expect((await remote.umbel(["prune"])).code).toBe(0);
  });

  test("a schema file is the workflow's: read here, sent inline, the host's worker returns the object", async () => {
    // Only on this side: the host's umbel gets the object in the envelope.
    writeFileSync(
      join(local.work, "n.schema.json"),
      '{"type":"object","properties":{"n":{"type":"number"}},"required":["n"]}',
    );
    writeFileSync(
      join(local.work, "schema.yaml"),
      `workers: { far: { host: box } }
steps:
  - id: count
    run: far
    prompt: 'fake:mcp StructuredOutput {"n":3}'
    schema: n.schema.json
    outputs: { n: structured.n }
`,
    );
    const r = await local.umbel(["run", "schema.yaml", "--json"]);
    expect(lastJson(r.stdout)).toMatchObject({ status: "done", outputs: { count: { n: "3" } } });
    expect(r.code).toBe(0);
  });

  test("umbel_run over MCP takes the same file: the plan shows the host, and the run goes over it", async () => {
    const client = await connectUmbelMcp(local, "umbel-e2e-hosts-workflow");
    try {
      const ok = async (args: Record<string, unknown>) => {
        const r = (await client.callTool({ name: "umbel_run", arguments: args })) as ToolResult;
        if (r.isError) throw new Error(`umbel_run: ${JSON.stringify(r.content)}`);
        return r.structuredContent as Record<string, unknown>;
      };
      expect(await ok({ file: "two.yaml", dryRun: true })).toMatchObject({
        workers: { here: { provider: "claude" }, far: { host: "box", cwd: "the host's default" } },
      });
      expect(await ok({ file: "two.yaml" })).toMatchObject({
        status: "done",
        outputs: { poem: { poem: `A poem about the otter ${CANARY}` } },
        purged: [expect.stringMatching(/^here-/), expect.stringMatching(/^box:far-/)],
      });
    } finally {
      await client.close();
    }
    expect((await remote.umbel(["ls", "--json"])).stdout).toBe("[]\n");
  });

  test("the link drops mid-step: 69 at the step's timeout, the host's worker runs on; --resume continues its turn", async () => {
    writeFileSync(
      join(local.work, "slow.yaml"),
      `workers: { far: { host: box } }
steps:
  - { id: long, run: far, prompt: "fake:slow 14000", timeout: 8s, outputs: { a: answer } }
`,
    );
    const child = Bun.spawn([UMBEL, "run", "slow.yaml", "--json"], {
      cwd: local.work,
      env: local.env,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
    });
    await eventually(() => remoteWaits()[0], 15_000, "the remote wait to run");
    await sshd.stop();
    let stdout: string;
    let code: number;
    try {
      [stdout, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    } finally {
      await sshd.start();
    }
    const summary = lastJson(stdout);
    // Read before toMatchObject, which leaves its matchers in the object it matched (bun 1.4.5).
    const { session, message } = summary.failure as { session: string; message: string };
    expect(session).toMatch(/^box:far-/);
    expect(message).toContain("host box");
    expect(summary).toMatchObject({
      status: "failed",
      exitCode: 69,
      failure: { step: "long", outcome: "unreachable", exitCode: 69 },
    });
    expect(code).toBe(69);
    // The link going down killed nothing: the worker runs on there, mid-turn.
    const onHost = JSON.parse((await remote.umbel(["ls", "--json"])).stdout) as {
      name: string;
      state: string;
    }[];
    expect(onHost).toEqual([expect.objectContaining({ name: session.slice(4), state: "busy" })]);
    // --resume finds it (its status relayed), keeps it and waits on the same turn, never sending it again.
    const resumed = await local.umbel(["run", "--resume", String(summary.runId), "--json"]);
    expect(lastJson(resumed.stdout)).toMatchObject({
      status: "done",
      resumed: [{ worker: "far", how: "kept", session, continues: "long" }],
      outputs: { long: { a: expect.stringMatching(/^FAKE-REPLY/) } },
      purged: [session],
    });
    expect(resumed.code).toBe(0);
    expect((await remote.umbel(["ls", "--json"])).stdout).toBe("[]\n");
  });

  test("an unknown host is refused at its file:line before anything is spawned", async () => {
    writeFileSync(join(local.work, "nohost.yaml"), TWO_HOSTS("bix"));
    const r = await local.umbel(["run", "nohost.yaml"]);
    expect(r.stderr).toBe(
      "umbel: nohost.yaml:4:11: workers.far.host: no host bix in config.toml (hosts: box, gone); did you mean box?\n",
    );
    expect(r.code).toBe(2);
    expect((await local.umbel(["ls", "--local", "--json"])).stdout).toBe("[]\n");
  });

  test("a host that cannot be reached fails its step with 69 naming it; the run is recorded and resumable", async () => {
    writeFileSync(join(local.work, "gone.yaml"), TWO_HOSTS("gone"));
    const r = await local.umbel(["run", "gone.yaml", "--json"]);
    const summary = lastJson(r.stdout);
    expect(summary).toMatchObject({
      status: "failed",
      exitCode: 69,
      steps: { pick: "done", poem: "failed" },
      failure: { step: "poem", worker: "far", outcome: "unreachable", exitCode: 69 },
    });
    expect(String((summary.failure as { message: string }).message)).toContain("host gone");
    expect(r.code).toBe(69);
    const resumed = await local.umbel(["run", "--resume", String(summary.runId), "--json"]);
    expect(lastJson(resumed.stdout)).toMatchObject({
      status: "failed",
      exitCode: 69,
      steps: { pick: "done" },
    });
    expect(resumed.code).toBe(69);
    await local.umbel(["prune"]);
  });
});

test("a sandbox without hosts: a host worker is a usage error naming config.toml", async () => {
  const sb = await createSandbox();
  try {
    writeFileSync(
      join(sb.work, "h.yaml"),
      "workers: { w: { host: box } }\nsteps: [{ id: s, run: w, prompt: p }]\n",
    );
    const r = await sb.umbel(["run", "h.yaml", "--dry-run"]);
    expect(r.stderr).toBe(
      "umbel: h.yaml:1:23: workers.w.host: no host box: config.toml declares no [hosts.NAME] (docs/hosts.md)\n",
    );
    expect(r.code).toBe(2);
  } finally {
    await sb.dispose();
  }
});
