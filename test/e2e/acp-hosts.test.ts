import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type AcpFace, startAcp } from "../helpers/acp-client.ts";
import { eventually, type Sandbox } from "../helpers/sandbox.ts";
import { createHostPair, type HostPair, hasSshd } from "../helpers/sshd.ts";

// A real sshd, two umbels and a fake claude on real tmux: seconds a test (bun's default is 5 s).
setDefaultTimeout(60_000);

/**
 * `umbel acp` with a host (docs/acp.md): a session/new whose _meta.umbel names a host runs on that
 * host's own `umbel acp` (the session HOST:NAME here), and `--host` serves the whole face from it;
 * over the real sshd of test/helpers/sshd.ts, as test/e2e/hosts.test.ts.
 */

let pair: HostPair;
let local: Sandbox;
let remote: Sandbox;
let face: AcpFace | null = null;

beforeAll(async () => {
  if (!hasSshd()) throw new Error("no sshd: apt-get install openssh-server (.ci/run installs it)");
  pair = await createHostPair();
  ({ local, remote } = pair);
});

afterAll(async () => {
  face?.kill();
  await pair?.dispose();
});

const names = async (sb: Sandbox) =>
  JSON.parse((await sb.umbel(["ls", "--json", "--local"])).stdout) as { name: string; state: string }[];

describe("a session on a host", () => {
  test("_meta.umbel.host: the host's worker, named box:NAME, streams its turn here; the client's end kills it there", async () => {
    face = startAcp(local);
    await face.initialize();
    const made = await face.newSession(remote.work, { host: "box" });
    expect(made.sessionId).toMatch(/^box:acp-[0-9a-f]{8}$/);
    const name = made.sessionId.slice("box:".length);
    // The worker is the host's: this machine has none.
    expect((await names(remote)).map((w) => w.name)).toEqual([name]);
    expect(await names(local)).toEqual([]);

    const turn = await face.prompt(made.sessionId, "fake:reply from the host");
    expect(turn.stopReason).toBe("end_turn");
    expect(turn.updates).toContainEqual({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "from the host" },
    });

    const tools = await face.prompt(made.sessionId, "fake:tools 1");
    const ids = tools.updates.flatMap((u) =>
      u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update"
        ? [[u.sessionUpdate, u.toolCallId]]
        : [],
    );
    expect(ids.map(([kind]) => kind)).toEqual(["tool_call", "tool_call_update"]);
    expect(ids[0]?.[1]).toBe(ids[1]?.[1]);
    expect(tools.stopReason).toBe("end_turn");

    expect(await face.close()).toBe(0);
    face = null;
    // The host's umbel acp saw its stdin close: it killed the worker it spawned (tombstone kept).
    await eventually(async () => (await names(remote)).every((w) => w.state === "killed"), 20_000);
  });

  test("--host serves the whole face from the host's umbel acp", async () => {
    face = startAcp(local, ["--host", "box"]);
    const init = await face.initialize();
    expect(init.agentInfo?.name).toBe("umbel");
    const made = await face.newSession(remote.work);
    expect(made.sessionId).toMatch(/^acp-[0-9a-f]{8}$/);
    expect((await names(remote)).map((w) => w.name)).toContain(made.sessionId);
    const turn = await face.prompt(made.sessionId, "fake:reply relayed");
    expect(turn.stopReason).toBe("end_turn");
    expect(turn.updates).toContainEqual({
      sessionUpdate: "agent_message_chunk",
      content: { type: "text", text: "relayed" },
    });
    expect(await face.close()).toBe(0);
    face = null;
  });

  test("--host with an --env value is refused before anything travels", async () => {
    const run = await local.umbel(["acp", "--host", "box", "--env", "TOKEN=s3cret"]);
    expect(run.stderr).toContain(
      "--env TOKEN=…: with --host a value would travel on the host's command line",
    );
    expect(run.stderr).not.toContain("s3cret");
    expect(run.code).toBe(2);
  });
});
