import { describe, expect, test } from "bun:test";
import { sendOrQueue } from "../../../src/operations/fleet/queue.ts";
import { waitForTurns } from "../../../src/operations/fleet/wait-many.ts";
import { runPrintTurn } from "../../../src/operations/print/turn.ts";
import { statusOf } from "../../../src/operations/worker/status.ts";
import { BUSY, IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/**
 * A worker is read once per verb (issue 23): its meta.json once, its events log once before the
 * prompt is typed (the baseline comes from that same read), and the wait reads meta.json again only
 * once the turn is over (a queued prompt goes out to the worker as it is then, not as it was).
 */
const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });

type Reads = { meta: number; events: number };

function counted(world: FakeWorld): { total: Reads; beforePaste: Reads | null } {
  const seen = { total: { meta: 0, events: 0 }, beforePaste: null as Reads | null };
  const store = world.deps.store;
  const readMeta = store.readMeta.bind(store);
  const readHooksLog = store.readHooksLog.bind(store);
  store.readMeta = async (name) => {
    seen.total.meta++;
    return readMeta(name);
  };
  store.readHooksLog = async (name) => {
    seen.total.events++;
    return readHooksLog(name);
  };
  const paste = world.deps.tmux.paste.bind(world.deps.tmux);
  world.deps.tmux.paste = async (...args) => {
    seen.beforePaste ??= { ...seen.total };
    return paste(...args);
  };
  return seen;
}

function answeringClaude(): FakeWorld {
  const world = createFakeWorld();
  addWorker(world, "w1", { screen: IDLE });
  world.hook("w1", ev("SessionStart"));
  world.tmux.onKeys = (name, keys) => {
    const pane = world.tmux.panes.get(name);
    if (!pane || !keys.includes("Enter") || pane.screen !== IDLE) return;
    pane.screen = BUSY;
    const prompt = world.tmux.pasted.at(-1)?.text ?? "";
    world.hook(name, ev("UserPromptSubmit", { prompt_id: "p1", prompt }));
    world.clock.at(world.clock.now() + 300, () => {
      pane.screen = IDLE;
      world.hook(name, ev("Stop", { prompt_id: "p1", last_assistant_message: "hi" }));
    });
  };
  return world;
}

describe("a worker read once per verb", () => {
  test("send: meta.json once; the events log once before the prompt is typed", async () => {
    const world = answeringClaude();
    const reads = counted(world);
    await sendOrQueue(world.deps, { name: "w1", prompt: "hello" });
    expect(reads.total.meta).toBe(1);
    expect(reads.beforePaste).toEqual({ meta: 1, events: 1 });
  });

  test("wait: meta.json once to start the wait, once more after the turn (the queue's drain)", async () => {
    const world = answeringClaude();
    await sendOrQueue(world.deps, { name: "w1", prompt: "hello" });
    const reads = counted(world);
    const outcome = await waitForTurns(world.deps, { name: "w1" });
    expect(outcome.reason).toBe("stop");
    expect(reads.total.meta).toBe(2);
  });

  test("-p: meta.json once before the prompt is typed (the wait reads it once more); the events log twice", async () => {
    const world = answeringClaude();
    const reads = counted(world);
    const turn = await runPrintTurn(world.deps, { name: "w1", prompt: "hello" });
    expect(turn.outcome.reason).toBe("stop");
    expect(reads.total.meta).toBe(2);
    // The transcript's mark is taken before the send begins, and the send looks again under the
    // composer lock (the baseline comes from that look): two moments, one read each.
    expect(reads.beforePaste).toEqual({ meta: 1, events: 2 });
  });

  test("status: meta.json once and the events log once", async () => {
    const world = answeringClaude();
    const reads = counted(world);
    await statusOf(world.deps, "w1");
    expect(reads.total).toEqual({ meta: 1, events: 1 });
  });
});

describe("a claimed spare's -p turn: the claim's liveness look stands for send's", () => {
  function looks(world: FakeWorld): { beforePaste: number | null; total: () => number } {
    let count = 0;
    const seen = { beforePaste: null as number | null, total: () => count };
    const paneInfo = world.deps.tmux.paneInfo.bind(world.deps.tmux);
    world.deps.tmux.paneInfo = async (name) => {
      count++;
      return paneInfo(name);
    };
    const paste = world.deps.tmux.paste.bind(world.deps.tmux);
    world.deps.tmux.paste = async (...args) => {
      seen.beforePaste ??= count;
      return paste(...args);
    };
    return seen;
  }

  test("a worker the turn did not just claim: send looks at its pane before typing", async () => {
    const world = answeringClaude();
    const seen = looks(world);
    const turn = await runPrintTurn(world.deps, { name: "w1", prompt: "hello" });
    expect(turn.outcome.reason).toBe("stop");
    expect(seen.beforePaste).toBe(1);
  });

  test("claimed: no second look before the paste (the claim looked under its lock a moment ago)", async () => {
    const world = answeringClaude();
    const seen = looks(world);
    const turn = await runPrintTurn(world.deps, { name: "w1", prompt: "hello", claimed: true });
    expect(turn.outcome.reason).toBe("stop");
    expect(turn.text).toBe("hi");
    expect(seen.beforePaste).toBe(0);
  });
});
