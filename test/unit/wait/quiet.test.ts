import { describe, expect, test } from "bun:test";
import { getProvider } from "../../../src/core/providers/registry.ts";
import type { WaitConfig } from "../../../src/core/wait/types.ts";
import { waitForTurn } from "../../../src/operations/wait/wait.ts";
import { BUSY, IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld } from "../../helpers/fake-deps.ts";
import { runWait } from "../../helpers/machine-world.ts";

/**
 * A long quiet turn costs ~no CPU: once its events log has not grown for 10 s, wait looks at tmux
 * every 5 s instead of every second (each look is two tmux process starts; 50 workers at 1 s took
 * 15% of a core in one wait --all). A hook still ends the wait at once.
 */
const claude = getProvider("claude");
const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });
const START = ev("SessionStart", { transcript_path: "/t.jsonl" });
const SUBMIT = ev("UserPromptSubmit", { prompt_id: "p1", prompt: "hi" });
const config = (over: Partial<WaitConfig> = {}): WaitConfig => ({
  provider: claude,
  baseline: 1,
  startedAt: 0,
  deadline: 600_000,
  idleTimeoutMs: null,
  killed: false,
  ...over,
});
const count = (trace: readonly { command: string }[], kind: string) =>
  trace.filter((t) => t.command === kind).length;

describe("a quiet turn", () => {
  test("60 s with no hook: ~10 looks in its first 10 s, then one every 5 s; the Stop still ends it at once", () => {
    const run = runWait(config(), {
      events: [
        [0, START],
        [0, SUBMIT],
        [60_000, ev("Stop", { prompt_id: "p1", last_assistant_message: "done" })],
      ],
      screens: [[0, BUSY]],
    });
    expect(run.reason).toBe("stop");
    expect(run.at).toBeLessThan(60_010);
    expect(count(run.trace, "probe")).toBeLessThanOrEqual(22);
    expect(count(run.trace, "capture")).toBeLessThanOrEqual(22);
  });

  test("a hook resets it: hooks every 8 s keep the 1 s look", () => {
    const progress = Array.from(
      { length: 7 },
      (_, i) => [8000 * (i + 1), ev("PostToolUse", { tool_name: "Bash" })] as const,
    );
    const run = runWait(config(), {
      events: [
        [0, START],
        [0, SUBMIT],
        ...progress,
        [60_000, ev("Stop", { prompt_id: "p1", last_assistant_message: "x" })],
      ],
      screens: [[0, BUSY]],
    });
    expect(count(run.trace, "probe")).toBeGreaterThanOrEqual(50);
  });

  test("an interrupt that fires no hook is still seen, within 5 s more, in a quiet turn", () => {
    const run = runWait(config(), {
      events: [
        [0, START],
        [0, SUBMIT],
      ],
      screens: [
        [0, BUSY],
        [30_000, IDLE],
      ],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
    expect(run.at).toBeGreaterThanOrEqual(32_000);
    expect(run.at).toBeLessThanOrEqual(30_000 + 2000 + 10_000);
  });

  test("with --idle-timeout the look stays every second (it is the idle clock)", () => {
    const run = runWait(config({ idleTimeoutMs: 120_000 }), {
      events: [
        [0, START],
        [0, SUBMIT],
        [60_000, ev("Stop", { prompt_id: "p1", last_assistant_message: "done" })],
      ],
      screens: [[0, BUSY]],
    });
    expect(count(run.trace, "probe")).toBeGreaterThanOrEqual(55);
  });
});

describe("a look", () => {
  test("is one tmux call: the pane and its screen together", async () => {
    const world = createFakeWorld();
    addWorker(world, "w1", { screen: BUSY });
    world.hook("w1", START, SUBMIT);
    world.clock.at(world.clock.now() + 3500, () =>
      world.hook("w1", ev("Stop", { prompt_id: "p1", last_assistant_message: "done" })),
    );
    const outcome = await waitForTurn(world.deps, { name: "w1", after: 1 });
    expect(outcome.reason).toBe("stop");
    const looks = world.tmux.calls.filter((c) => c === "display-message+capture-pane").length;
    expect(looks).toBeGreaterThanOrEqual(1);
    expect(world.tmux.calls.filter((c) => c === "capture-pane" || c === "display-message")).toEqual([]);
  });
});
