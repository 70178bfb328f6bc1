import { describe, expect, test } from "bun:test";
import { DRAIN_HOOK_COMMAND } from "../../../src/core/fleet/drain.ts";
import { drainOnTurnEnd, sendOrQueue } from "../../../src/operations/fleet/queue.ts";
import { waitForTurns } from "../../../src/operations/fleet/wait-many.ts";
import { listWorkers, statusOf } from "../../../src/operations/worker/status.ts";
import { BUSY, IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/** send --queue and the drain, on in-memory ports: in order, each with its own baseline, no daemon. */

const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });

/** A claude TUI: Enter on the idle box submits (UserPromptSubmit p<n>); turns end when the test says. */
function tui(world: FakeWorld): { finish(): void } {
  let n = 0;
  world.tmux.onKeys = (name, keys) => {
    const pane = world.tmux.panes.get(name);
    if (!pane || pane.screen !== IDLE || !keys.includes("Enter")) return;
    pane.screen = BUSY;
    n++;
    world.hook(
      name,
      ev("UserPromptSubmit", { prompt_id: `p${n}`, prompt: world.tmux.pasted.at(-1)?.text ?? "" }),
    );
  };
  return {
    finish() {
      Object.assign(world.tmux.panes.get("w1") ?? {}, { screen: IDLE });
      world.hook("w1", ev("Stop", { prompt_id: `p${n}`, last_assistant_message: `answer ${n}` }));
    },
  };
}

function idleWorker(): FakeWorld {
  const world = createFakeWorld();
  addWorker(world, "w1", { screen: IDLE });
  world.hook("w1", ev("SessionStart"));
  return world;
}

describe("send --queue", () => {
  test("an idle worker with nothing queued takes it at once (state sent, a baseline)", async () => {
    const world = idleWorker();
    tui(world);
    const sent = await sendOrQueue(world.deps, { name: "w1", prompt: "one", queue: true });
    expect(sent).toMatchObject({ baseline: 1, promptId: "p1", queued: { position: 0, state: "sent" } });
    expect(world.tmux.pasted.map((p) => p.text)).toEqual(["one"]);
  });

  test("a busy worker: queued in order; the wait that sees the turn end sends the next, with its baseline", async () => {
    const world = idleWorker();
    const turns = tui(world);
    await sendOrQueue(world.deps, { name: "w1", prompt: "one" });
    const two = await sendOrQueue(world.deps, { name: "w1", prompt: "two", queue: true });
    const three = await sendOrQueue(world.deps, { name: "w1", prompt: "three", queue: true });
    expect(two).toMatchObject({ baseline: null, queued: { position: 0, state: "queued" } });
    expect(three).toMatchObject({ baseline: null, queued: { position: 1, state: "queued" } });
    expect(world.tmux.pasted.map((p) => p.text)).toEqual(["one"]);
    expect((await statusOf(world.deps, "w1")).queue?.map((e) => e.state)).toEqual(["queued", "queued"]);

    world.clock.at(world.clock.now() + 500, () => turns.finish());
    const first = await waitForTurns(world.deps, { name: "w1", after: 1 });
    expect(first).toMatchObject({ reason: "stop", evidence: { message: "answer 1" } });
    expect(first.next).toEqual({ id: two.queued?.id ?? "", baseline: 3 });
    expect(world.tmux.pasted.map((p) => p.text)).toEqual(["one", "two"]);

    world.clock.at(world.clock.now() + 500, () => turns.finish());
    const second = await waitForTurns(world.deps, { name: "w1", after: first.next?.baseline ?? -1 });
    expect(second).toMatchObject({ evidence: { message: "answer 2" }, next: { id: three.queued?.id } });
    expect(world.tmux.pasted.map((p) => p.text)).toEqual(["one", "two", "three"]);
    const queue = (await statusOf(world.deps, "w1")).queue ?? [];
    expect(queue.map((e) => [e.id, e.state, e.baseline])).toEqual([
      [two.queued?.id, "sent", 3],
      [three.queued?.id, "sent", second.next?.baseline],
    ]);
  });

  test("status and ls never send: the idle worker keeps its prompt queued; the end-of-turn hook's drain sends it", async () => {
    const world = idleWorker();
    const turns = tui(world);
    await sendOrQueue(world.deps, { name: "w1", prompt: "one" });
    const two = await sendOrQueue(world.deps, { name: "w1", prompt: "two", queue: true });
    turns.finish();
    expect(await statusOf(world.deps, "w1")).toMatchObject({ state: "idle", queue: [{ state: "queued" }] });
    expect((await listWorkers(world.deps)).map((w) => w.state)).toEqual(["idle"]);
    expect(world.tmux.pasted.map((p) => p.text)).toEqual(["one"]);
    expect(await drainOnTurnEnd(world.deps, "w1")).toEqual({ id: two.queued?.id ?? "", baseline: 3 });
    expect(world.tmux.pasted.map((p) => p.text)).toEqual(["one", "two"]);
    expect((await statusOf(world.deps, "w1")).state).toBe("busy");
  });

  test("the hook's drain command is this umbel's hidden __drain NAME, never a verb that reads", async () => {
    const world = idleWorker();
    Object.assign(world.deps.system, { selfCommand: () => ["/opt/umbel"] });
    tui(world);
    await sendOrQueue(world.deps, { name: "w1", prompt: "one" });
    await sendOrQueue(world.deps, { name: "w1", prompt: "two", queue: true });
    const command = world.sessions.get("w1")?.files?.get("drain.cmd") ?? "";
    expect(command).toEndWith(`'/opt/umbel' '${DRAIN_HOOK_COMMAND}' 'w1'`);
    expect(command).not.toContain("status");
  });

  test("a plain send to an idle worker with a queue: the queued prompt goes first; this one is busy (4)", async () => {
    const world = idleWorker();
    const turns = tui(world);
    await sendOrQueue(world.deps, { name: "w1", prompt: "one" });
    const two = await sendOrQueue(world.deps, { name: "w1", prompt: "two", queue: true });
    turns.finish();
    await expect(sendOrQueue(world.deps, { name: "w1", prompt: "jumps" })).rejects.toMatchObject({
      code: "busy",
      exitCode: 4,
      data: { sent: { id: two.queued?.id } },
    });
    expect(world.tmux.pasted.map((p) => p.text)).toEqual(["one", "two"]);
  });

  test("a queued prompt the worker never takes is marked failed, never sent twice", async () => {
    const world = idleWorker();
    const turns = tui(world);
    await sendOrQueue(world.deps, { name: "w1", prompt: "one" });
    await sendOrQueue(world.deps, { name: "w1", prompt: "two", queue: true });
    turns.finish();
    world.tmux.onKeys = () => undefined; // Enter is swallowed: no UserPromptSubmit
    expect(await drainOnTurnEnd(world.deps, "w1")).toBeNull();
    expect((await statusOf(world.deps, "w1")).queue?.map((e) => e.state)).toEqual(["failed"]);
    const pasted = world.tmux.pasted.length;
    await drainOnTurnEnd(world.deps, "w1");
    expect(world.tmux.pasted).toHaveLength(pasted);
  });

  test("a dead worker is refused (125), nothing queued", async () => {
    const world = idleWorker();
    Object.assign(world.tmux.panes.get("w1") ?? {}, { dead: true, deadStatus: 1 });
    await expect(sendOrQueue(world.deps, { name: "w1", prompt: "x", queue: true })).rejects.toMatchObject({
      code: "dead",
    });
    expect(world.sessions.get("w1")?.files?.has("queue.json") ?? false).toBe(false);
  });
});
