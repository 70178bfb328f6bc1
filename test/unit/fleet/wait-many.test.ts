import { describe, expect, test } from "bun:test";
import { WaitManyInput } from "../../../src/core/fleet/wait-many.ts";
import { waitForTurns } from "../../../src/operations/fleet/wait-many.ts";
import { BUSY, IDLE, PERMISSION } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/**
 * wait --any / --all on in-memory ports: one machine per worker, on a virtual clock. The machines
 * share that clock and each sleep moves it on, so elapsed times here are not the race's; the e2e
 * test times the real one.
 */

const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });

/** Workers whose turns are running: each submitted a prompt and shows its busy screen. */
function busyWorkers(...names: string[]): FakeWorld {
  const world = createFakeWorld();
  for (const name of names) {
    addWorker(world, name, { screen: BUSY });
    world.hook(name, ev("SessionStart"), ev("UserPromptSubmit", { prompt_id: `p-${name}`, prompt: "x" }));
  }
  return world;
}

/** At `atMs` from now, `name`'s turn stops with `message`. */
function stopsAt(world: FakeWorld, name: string, atMs: number, message = `${name} done`): void {
  world.clock.at(world.clock.now() + atMs, () => {
    Object.assign(world.tmux.panes.get(name) ?? {}, { screen: IDLE });
    world.hook(name, ev("Stop", { prompt_id: `p-${name}`, last_assistant_message: message }));
  });
}

describe("wait --any / --all", () => {
  test("any: the first turn to end, its outcome and exit code; the others are pending, untouched", async () => {
    const world = busyWorkers("a", "b", "c");
    stopsAt(world, "b", 3000);
    stopsAt(world, "a", 9000);
    const result = await waitForTurns(world.deps, { names: ["a", "b", "c"], any: true });
    expect(result).toMatchObject({ name: "b", reason: "stop", exitCode: 0, evidence: { message: "b done" } });
    expect(result.outcomes?.map((o) => o.name)).toEqual(["b"]);
    expect(result.pending?.sort()).toEqual(["a", "c"]);
    expect(world.tmux.calls.filter((c) => c.startsWith("send-keys"))).toEqual([]);
  });

  test("any: a prompt is an ending too (input, 126)", async () => {
    const world = busyWorkers("a", "b");
    world.clock.at(world.clock.now() + 2000, () => {
      Object.assign(world.tmux.panes.get("a") ?? {}, { screen: PERMISSION });
      world.hook(
        "a",
        ev("PermissionRequest", { tool_name: "Bash", tool_input: { command: "echo hi > x.txt" } }),
      );
    });
    const result = await waitForTurns(world.deps, { name: "a", names: ["b"], any: true });
    expect(result).toMatchObject({ name: "a", reason: "input", exitCode: 126 });
    expect(result.evidence.inputId).toMatch(/^in-/);
  });

  test("all: one outcome each, in the order given; the exit code is the first that did not stop", async () => {
    const world = busyWorkers("a", "b", "c");
    stopsAt(world, "a", 1000);
    stopsAt(world, "c", 2000);
    world.clock.at(world.clock.now() + 4000, () => {
      world.hook("b", ev("StopFailure", { prompt_id: "p-b", error: "server_error" }));
    });
    const result = await waitForTurns(world.deps, { names: ["a", "b", "c"], all: true });
    expect(result.outcomes?.map((o) => [o.name, o.reason])).toEqual([
      ["a", "stop"],
      ["b", "provider-error"],
      ["c", "stop"],
    ]);
    expect(result).toMatchObject({ name: "b", exitCode: 122 });
    expect(result.elapsedMs).toBeGreaterThanOrEqual(4000);
  });

  test("all stopped: exit 0, the first worker's outcome leads", async () => {
    const world = busyWorkers("a", "b");
    stopsAt(world, "b", 500);
    stopsAt(world, "a", 700);
    const result = await waitForTurns(world.deps, { names: ["a", "b"], all: true });
    expect(result).toMatchObject({ name: "a", exitCode: 0 });
    expect(result.outcomes).toHaveLength(2);
  });

  test("a worker never sent a prompt fails the wait before any machine starts (no-turn, 5)", async () => {
    const world = busyWorkers("a");
    addWorker(world, "fresh", { screen: IDLE });
    await expect(waitForTurns(world.deps, { names: ["a", "fresh"], any: true })).rejects.toMatchObject({
      code: "no-turn",
      exitCode: 5,
    });
  });

  test("the caller's abort (SIGINT, MCP cancel) is the outcome: aborted (130)", async () => {
    const world = busyWorkers("a", "b");
    const controller = new AbortController();
    world.clock.at(world.clock.now() + 1500, () => controller.abort());
    const deps = { ...world.deps, signal: controller.signal };
    const result = await waitForTurns(deps, { names: ["a", "b"], any: true });
    expect(result).toMatchObject({ reason: "aborted", exitCode: 130 });
  });

  test("a timeout applies to each worker (124)", async () => {
    const world = busyWorkers("a", "b");
    const result = await waitForTurns(world.deps, { names: ["a", "b"], all: true, timeout: 60_000 });
    expect(result.outcomes?.map((o) => o.reason)).toEqual(["timeout", "timeout"]);
    expect(result.exitCode).toBe(124);
  });
});

describe("the wait input", () => {
  test.each([
    [{}, "give a worker name"],
    [{ names: ["a", "b"] }, "2 workers: say any (the first to end) or all (every one)"],
    [{ name: "a", names: ["b"], any: true, all: true }, "any and all exclude each other"],
    [{ names: ["a", "a"], all: true }, "worker a is named twice"],
    [{ names: ["a", "b"], any: true, after: 3 }, "after is one worker's baseline"],
  ])("%j is refused", (input, message) => {
    const parsed = WaitManyInput.safeParse(input);
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues.map((i) => i.message).join("; ")).toContain(message);
  });

  test.each([
    [{ name: "a" }],
    [{ name: "a", after: 2 }],
    [{ names: ["a"], any: true }],
    [{ name: "a", names: ["b"], all: true }],
  ])("%j is a wait", (input) => {
    expect(WaitManyInput.safeParse(input).success).toBe(true);
  });
});
