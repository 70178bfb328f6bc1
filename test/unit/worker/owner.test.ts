import { describe, expect, test } from "bun:test";
import type { DoctorFacts } from "../../../src/core/doctor/facts.ts";
import { checkWorkers } from "../../../src/core/doctor/machine.ts";
import { AbortedError } from "../../../src/core/errors.ts";
import { spawnWorker } from "../../../src/operations/spawn/spawn.ts";
import { pruneWorkers } from "../../../src/operations/worker/kill.ts";
import { sendPrompt } from "../../../src/operations/worker/send.ts";
import { listWorkers, statusOf } from "../../../src/operations/worker/status.ts";
import { BUSY, IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/**
 * An anonymous -p worker belongs to the -p that made or claimed it (meta.owner: its pid and start):
 * once that process is gone nobody will use or remove it, so it reads `orphaned` (owner-gone),
 * prune removes it with its session and doctor names it. An interrupt while a prompt is being
 * delivered is an abort (130), never a failed delivery (1).
 */
const START = { hook_event_name: "SessionStart", session_id: "S", transcript_path: "/t/s.jsonl" };

function world(): FakeWorld {
  const w = createFakeWorld({ env: { PATH: "/usr/bin:/bin", HOME: "/home/u" } });
  w.tmux.onNewSession = ({ name }) => {
    const pane = w.tmux.panes.get(name);
    if (pane) pane.screen = IDLE;
    w.hook(name, START);
  };
  return w;
}

/** The fake's processes: the owner's start while it lives, null once it is gone. */
function processes(w: FakeWorld, alive: Set<number>): void {
  Object.assign(w.deps.system, {
    processStart: async (pid: number) => (alive.has(pid) ? `start-${pid}` : null),
  });
}

describe("an owned worker", () => {
  test("spawn with an owner records it in meta.json and in the wrapper's owner file, and launches it --owned", async () => {
    const w = world();
    processes(w, new Set([w.deps.pid]));
    await spawnWorker(w.deps, { name: "p-1", provider: "claude" }, { owned: true });
    const s = w.sessions.get("p-1");
    expect(s?.meta?.owner).toEqual({ pid: w.deps.pid, start: `start-${w.deps.pid}` });
    expect(s?.files?.get("owner")).toBe(`${w.deps.pid} start-${w.deps.pid}\n`);
    expect(w.tmux.started[0]?.command.slice(2, 3)).toEqual(["--owned"]);
  });

  test("reads orphaned (owner-gone) once its owner is gone; prune removes it and its live session", async () => {
    const w = world();
    const alive = new Set([w.deps.pid]);
    processes(w, alive);
    await spawnWorker(w.deps, { name: "p-1", provider: "claude" }, { owned: true });
    expect((await statusOf(w.deps, "p-1")).state).toBe("idle");
    alive.delete(w.deps.pid);
    expect(await statusOf(w.deps, "p-1")).toMatchObject({ state: "orphaned", reason: "owner-gone" });
    expect(await pruneWorkers(w.deps)).toEqual({ removed: ["p-1"], kept: [] });
    expect(w.tmux.panes.has("p-1")).toBe(false);
    expect(w.sessions.has("p-1")).toBe(false);
  });

  test("doctor names orphaned and failed workers with the prune that clears them", async () => {
    const w = world();
    addWorker(w, "w1", { screen: IDLE });
    const list = await listWorkers(w.deps);
    const row = (name: string, state: "orphaned" | "failed") => ({ ...list[0], name, state }) as never;
    const facts = {
      workers: { list: [...list, row("p-1", "orphaned"), row("w2", "failed")], error: null },
      now: 0,
    };
    expect(checkWorkers(facts as unknown as DoctorFacts)).toMatchObject({
      status: "warn",
      message: "1 live; 1 orphaned (p-1); 1 failed (w2)",
      fix: "umbel prune",
    });
  });
});

describe("an interrupt during delivery", () => {
  test("while send waits for the submit hook: AbortedError (130), not not-delivered (1)", async () => {
    const w = createFakeWorld();
    addWorker(w, "w1", { screen: IDLE });
    w.hook("w1", START);
    const stop = new AbortController();
    // The TUI takes the prompt (busy) but its submit hook is late; the caller presses Ctrl-C.
    w.tmux.onKeys = (target, keys) => {
      const pane = w.tmux.panes.get(target);
      if (!pane || !keys.includes("Enter")) return;
      pane.screen = BUSY;
      w.clock.at(w.clock.now() + 500, () => stop.abort());
    };
    const error = await sendPrompt({ ...w.deps, signal: stop.signal }, { name: "w1", prompt: "hi" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect((error as AbortedError).exitCode).toBe(130);
  });

  test("before anything is typed: AbortedError, nothing pasted", async () => {
    const w = createFakeWorld();
    addWorker(w, "w1", { screen: IDLE });
    const stop = new AbortController();
    stop.abort();
    const error = await sendPrompt({ ...w.deps, signal: stop.signal }, { name: "w1", prompt: "hi" }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AbortedError);
    expect(w.tmux.pasted).toEqual([]);
  });
});
