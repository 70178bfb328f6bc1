import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { createTmux } from "../../src/adapters/tmux.ts";
import { NameTakenError, TmuxError } from "../../src/core/errors.ts";
import type { TmuxPort } from "../../src/core/ports.ts";
import { eventually } from "../helpers/sandbox.ts";

// Declared here: a preload's setDefaultTimeout reaches only the first file of a run (oven-sh/bun#43787).
setDefaultTimeout(60_000);

/**
 * Two state roots sharing one tmux socket (UMBEL_TMUX_SOCKET): each session umbel makes carries its
 * state root (@umbel-root, set in the new-session invocation), and every call that targets a session
 * checks it in the same tmux command, so one root's port never reads, types into, renames or kills
 * the other's session of the same name (issue 22 item 7: a failed spawn's unwind killed the other
 * root's live worker, 4 of 4).
 */
const socket = `umbel-mark-test-${process.pid}`;
const env = { PATH: process.env.PATH ?? "/usr/bin:/bin" };
// Every character tmux's formats or its command parser would read as syntax.
const ROOT_A = `/tmp/umbel mark,#{a}}#,'"$;{x} ~b`;
const ROOT_B = "/tmp/umbel-mark-b";
const a = createTmux({ socket, hostEnv: env, root: ROOT_A });
const b = createTmux({ socket, hostEnv: env, root: ROOT_B });
const bare = createTmux({ socket, hostEnv: env });

afterAll(async () => {
  await bare.killServer().catch(() => undefined);
});

const start = (tmux: TmuxPort, name: string) =>
  tmux.newSession({
    name,
    cwd: "/",
    width: 80,
    height: 20,
    command: ["cat"],
    bufferName: `umbel-env-${name}`,
    bufferContent: "",
  });

describe("a session belongs to the state root that made it", () => {
  test("the other root sees nothing of it: has-session, pane, screen, look", async () => {
    await start(a, "w1");
    expect(await a.hasSession("w1")).toBe(true);
    expect((await a.paneInfo("w1"))?.dead).toBe(false);
    expect(await a.capture("w1")).not.toBeNull();
    expect((await a.look("w1")).pane).not.toBeNull();
    expect(await b.hasSession("w1")).toBe(false);
    expect(await b.paneInfo("w1")).toBeNull();
    expect(await b.capture("w1")).toBeNull();
    expect(await b.look("w1")).toEqual({ pane: null, screen: null });
    expect(await a.listSessions()).toContain("w1");
    expect(await b.listSessions()).not.toContain("w1");
  });

  test("the other root types nothing into it, and cannot kill or rename it", async () => {
    expect(await b.sendLiteral("w1", "from-b")).toBe(false);
    expect(await b.sendKeys("w1", ["Enter"])).toBe(false);
    expect(await b.paste("w1", "pasted-by-b", "umbel-send-b1")).toBe(false);
    await b.killSession("w1");
    expect(await a.hasSession("w1")).toBe(true);
    expect(await b.renameSession("w1", "w2").catch((e: unknown) => e)).toBeInstanceOf(TmuxError);
    expect(await a.hasSession("w1")).toBe(true);
    expect(await a.capture("w1")).not.toContain("-b");
  });

  test("its own root types into it (text the tmux parser would read as syntax included)", async () => {
    const text = `it's "#{session_name}" $HOME ~ {x} ; done`;
    expect(await a.sendLiteral("w1", text)).toBe(true);
    expect(await a.sendKeys("w1", ["Enter"])).toBe(true);
    await eventually(async () => (await a.capture("w1"))?.includes(text), 5000, "the literal text");
    expect(await a.paste("w1", "pasted ; by 'a'", "umbel-send-a1")).toBe(true);
    await eventually(async () => (await a.capture("w1"))?.includes("pasted ; by 'a'"), 5000, "the paste");
  });

  test("keys before the paste go in the same call, first; the other root's call types neither", async () => {
    expect(await b.paste("w1", "second-by-b", "umbel-send-b2", ["x", "y", "Enter"])).toBe(false);
    expect(await a.paste("w1", "after-keys", "umbel-send-a2", ["k", "e", "y", "s", "Space"])).toBe(true);
    await eventually(
      async () => (await a.capture("w1"))?.includes("keys after-keys"),
      5000,
      "keys, then the paste",
    );
    expect(await a.capture("w1")).not.toContain("second-by-b");
    expect(await a.capture("w1")).not.toContain("xy");
  });

  test("a second root's session of a taken name is refused as taken, and its unwind leaves the first alone", async () => {
    const error = await start(b, "w1").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NameTakenError);
    expect((error as NameTakenError).exitCode).toBe(4);
    await b.killSession("w1");
    expect(await a.hasSession("w1")).toBe(true);
  });

  test("its own root renames and kills it", async () => {
    await a.renameSession("w1", "w9");
    expect(await a.hasSession("w9")).toBe(true);
    expect(await b.hasSession("w9")).toBe(false);
    await a.killSession("w9");
    expect(await a.hasSession("w9")).toBe(false);
  });

  test("a session made before sessions were marked (no @umbel-root) is every root's, as it was", async () => {
    await start(bare, "legacy");
    expect(await a.hasSession("legacy")).toBe(true);
    expect(await b.hasSession("legacy")).toBe(true);
    await b.killSession("legacy");
    expect(await a.hasSession("legacy")).toBe(false);
  });
});
