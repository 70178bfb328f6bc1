import { describe, expect, test } from "bun:test";
import { DEFAULT_MAX_STARTING, parseMaxStarting } from "../../../src/core/spawn/boot-slots.ts";
import { spawnWorker } from "../../../src/operations/spawn/spawn.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/**
 * UMBEL_MAX_STARTING: at most N workers of one provider start at once (across processes: a lock file
 * per slot in the state root), so 30 spawns boot in waves instead of all timing out on 2 cores.
 */
describe("parseMaxStarting", () => {
  test.each([
    [undefined, DEFAULT_MAX_STARTING],
    ["", DEFAULT_MAX_STARTING],
    ["3", 3],
    [" 1 ", 1],
    ["0", null],
  ])("%p → %p", (value, max) => {
    expect(parseMaxStarting(value)).toBe(max);
  });

  test.each(["-1", "two", "1.5"])("%p is a usage error naming the variable", (value) => {
    expect(() => parseMaxStarting(value)).toThrow("UMBEL_MAX_STARTING must be a whole number");
  });
});

/** A claude TUI that takes 1 s (virtual) to be ready; when each session started and each was ready. */
function bootingWorld(max: string): { world: FakeWorld; started: number[]; ready: number[] } {
  const world = createFakeWorld({ env: { PATH: "/usr/bin:/bin", HOME: "/home/u", UMBEL_MAX_STARTING: max } });
  const started: number[] = [];
  const ready: number[] = [];
  world.tmux.onNewSession = ({ name }) => {
    started.push(world.clock.now());
    world.clock.at(world.clock.now() + 1000, () => {
      const pane = world.tmux.panes.get(name);
      if (pane) pane.screen = IDLE;
      world.hook(name, { hook_event_name: "SessionStart", session_id: name, transcript_path: "/t.jsonl" });
    });
  };
  return { world, started, ready };
}

describe("boot waves", () => {
  test("with a cap of 2, the third spawn starts only once one of the first two is ready", async () => {
    const { world, started } = bootingWorld("2");
    const t0 = world.clock.now();
    await Promise.all(["a", "b", "c"].map((name) => spawnWorker(world.deps, { name, provider: "claude" })));
    expect(started).toHaveLength(3);
    expect((started[1] ?? 0) - t0).toBeLessThan(1000);
    expect((started[2] ?? 0) - t0).toBeGreaterThanOrEqual(1000);
    for (const name of ["a", "b", "c"]) expect(world.sessions.get(name)?.meta?.state).toBe("ready");
  });

  test("0 is no cap: every spawn starts at once", async () => {
    const { world, started } = bootingWorld("0");
    const t0 = world.clock.now();
    await Promise.all(["a", "b", "c"].map((name) => spawnWorker(world.deps, { name, provider: "claude" })));
    expect(started.every((at) => at - t0 < 1000)).toBe(true);
  });

  test("a slot waited for past the start timeout fails that spawn, and nothing of it is left", async () => {
    const { world } = bootingWorld("1");
    const results = await Promise.allSettled([
      spawnWorker(world.deps, { name: "a", provider: "claude", startTimeout: 5000 }),
      spawnWorker(world.deps, { name: "b", provider: "claude", startTimeout: 500 }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    expect(results[1]?.status === "rejected" ? results[1].reason : null).toMatchObject({
      code: "spawn-failed",
    });
    expect(world.sessions.has("b")).toBe(false);
  });

  test("a bad UMBEL_MAX_STARTING is a usage error before anything is made", async () => {
    const { world } = bootingWorld("lots");
    await expect(spawnWorker(world.deps, { name: "a", provider: "claude" })).rejects.toMatchObject({
      code: "usage",
    });
    expect(world.sessions.size).toBe(0);
    expect(world.tmux.started).toHaveLength(0);
  });
});
