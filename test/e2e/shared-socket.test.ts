import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTmux } from "../../src/adapters/tmux.ts";
import { createSandbox, type Sandbox } from "../helpers/sandbox.ts";

setDefaultTimeout(60_000);

/**
 * Two state roots sharing UMBEL_TMUX_SOCKET (issue 22 item 7): a failed spawn in one killed the
 * other's live worker of the same name (4 of 4; the unwind killed the session by name). Each root
 * touches only the tmux sessions it made, through every verb.
 */
const socket = `umbel-shared-${process.pid}`;
let a: Sandbox;
let b: Sandbox;
beforeAll(async () => {
  a = await createSandbox({ env: { UMBEL_TMUX_SOCKET: socket } });
  b = await createSandbox({ env: { UMBEL_TMUX_SOCKET: socket } });
});
afterAll(async () => {
  await createTmux({ socket, hostEnv: a.env })
    .killServer()
    .catch(() => undefined);
  await a.dispose();
  await b.dispose();
});

const stateOf = async (sb: Sandbox, name: string) =>
  (JSON.parse((await sb.umbel(["status", name, "--json"])).stdout) as { state: string }).state;

describe("two state roots on one tmux socket", () => {
  test("a spawn of a name the other root's live worker holds is refused (4), and that worker lives on", async () => {
    expect((await a.umbel(["spawn", "w1"])).code).toBe(0);
    const r = await b.umbel(["spawn", "w1"]);
    expect(r.stderr).toContain(`tmux session w1 already exists on socket ${socket}`);
    expect(r.code).toBe(4);
    expect(await stateOf(a, "w1")).toBe("idle");
    expect((await b.umbel(["status", "w1"])).code).toBe(3);
    expect((await a.umbel(["send", "w1", "fake:reply still here"])).code).toBe(0);
    expect((await a.umbel(["wait", "w1"])).code).toBe(0);
    expect((await a.umbel(["read", "w1"])).stdout).toBe("still here\n");
  });

  test("a worker whose session is gone does not take over the other root's session of its name", async () => {
    expect((await b.umbel(["spawn", "w2"])).code).toBe(0);
    // b's session goes behind its back (a bare tmux call, not umbel's), then a makes its own w2.
    await createTmux({ socket, hostEnv: b.env }).killSession("w2");
    expect((await a.umbel(["spawn", "w2"])).code).toBe(0);
    expect(await stateOf(b, "w2")).toBe("dead");
    const sent = await b.umbel(["send", "w2", "fake:reply not for a"]);
    expect(sent.code).toBe(125);
    expect((await b.umbel(["keys", "w2", "Enter"])).code).not.toBe(0);
    expect((await b.umbel(["kill", "w2"])).code).toBe(0);
    expect((await b.umbel(["prune"])).code).toBe(0);
    expect(await stateOf(a, "w2")).toBe("idle");
    const screen = (await a.umbel(["capture", "w2"])).stdout;
    expect(screen).not.toContain("not for a");
    expect((await a.umbel(["kill", "w2", "--purge"])).code).toBe(0);
    expect((await a.umbel(["kill", "w1", "--purge"])).code).toBe(0);
  });
});
