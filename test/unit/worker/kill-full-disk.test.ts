import { describe, expect, test } from "bun:test";
import { fsFaultError } from "../../../src/core/common/fs-fault.ts";
import { killWorker } from "../../../src/operations/worker/kill.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/**
 * Issue 22 item 12: `kill` on a full disk. It wrote last-screen.txt before it killed the session,
 * so ENOSPC left the worker running (and kill failing). The kill comes first; what it records after
 * is best-effort, and the result says what could not be written.
 */

function fullDisk(what: "last-screen" | "meta" | "both"): FakeWorld {
  const world = createFakeWorld();
  addWorker(world, "w1", { screen: IDLE });
  const enospc = (path: string) => fsFaultError({ errno: "ENOSPC", path, action: "write" });
  const store = world.deps.store;
  if (what !== "meta")
    store.writeLastScreen = async (name) => {
      throw enospc(store.paths(name).lastScreen);
    };
  if (what !== "last-screen")
    store.writeMeta = async (meta) => {
      throw enospc(store.paths(meta.name).meta);
    };
  return world;
}

describe("kill on a full disk", () => {
  test.each(["last-screen", "meta", "both"] as const)(
    "%s cannot be written: the session is killed all the same, and the result names what was not recorded",
    async (what) => {
      const world = fullDisk(what);
      const result = await killWorker(world.deps, { name: "w1" });
      expect(world.tmux.calls).toContain("kill-session");
      expect(world.tmux.panes.has("w1")).toBe(false);
      expect(result).toMatchObject({ name: "w1", state: "killed", wasAlive: true });
      const files = (result.unrecorded ?? []).map((u) => u.file);
      expect(files).toEqual(
        what === "both"
          ? ["last-screen.txt", "meta.json"]
          : [what === "meta" ? "meta.json" : "last-screen.txt"],
      );
      for (const u of result.unrecorded ?? []) expect(u.error).toContain("ENOSPC");
    },
  );

  test("the screen is captured before the session goes, so a disk with room records it", async () => {
    const world = fullDisk("meta");
    let captured = false;
    const capture = world.deps.tmux.capture;
    world.deps.tmux.capture = async (name, options) => {
      captured = world.tmux.panes.has(name);
      return capture(name, options);
    };
    await killWorker(world.deps, { name: "w1" });
    expect(captured).toBe(true);
    expect(world.sessions.get("w1")?.lastScreen).toBe(IDLE);
  });

  test("a disk with room: nothing unrecorded (the field is absent)", async () => {
    const world = createFakeWorld();
    addWorker(world, "w1", { screen: IDLE });
    expect(await killWorker(world.deps, { name: "w1" })).toEqual({
      name: "w1",
      state: "killed",
      wasAlive: true,
    });
  });

  test("an error that is not a file fault still fails the kill (a bug is never swallowed)", async () => {
    const world = createFakeWorld();
    addWorker(world, "w1", { screen: IDLE });
    world.deps.store.writeLastScreen = async () => {
      throw new TypeError("boom");
    };
    await expect(killWorker(world.deps, { name: "w1" })).rejects.toBeInstanceOf(TypeError);
  });
});
