import { describe, expect, test } from "bun:test";
import type { DoctorFacts } from "../../../src/core/doctor/facts.ts";
import { checkWorkers } from "../../../src/core/doctor/machine.ts";
import type { StatusResult } from "../../../src/core/worker/status.ts";
import { killWorker, pruneWorkers } from "../../../src/operations/worker/kill.ts";
import { listWorkers, statusOf } from "../../../src/operations/worker/status.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/**
 * Issue 22 item 9: one broken worker never breaks the fleet view. An inconsistent meta.json, a
 * corrupt queue.json, a half-done takeover, an exit record a live pane contradicts: `ls` lists it
 * as broken (the file, the reason, the fix) beside the others; `status NAME` says how to fix it;
 * `prune` clears it unless its tmux session is alive; `kill NAME --purge` removes it.
 */

const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });

/** good (healthy, live) beside one broken worker made by `breakIt`. */
function fleet(breakIt: (world: FakeWorld) => void): FakeWorld {
  const world = createFakeWorld();
  for (const name of ["good", "bad"]) {
    addWorker(world, name, { screen: IDLE });
    world.hook(name, ev("SessionStart", { transcript_path: `/t/${name}.jsonl` }));
  }
  breakIt(world);
  return world;
}

const session = (world: FakeWorld, name: string) => {
  const s = world.sessions.get(name);
  if (!s) throw new Error(`no session ${name}`);
  return s;
};

/** Each way a worker's own state can be broken, as the probes found them. */
const BREAKS: [string, (world: FakeWorld) => void, RegExp][] = [
  [
    "a meta.json that names another worker",
    (w) => {
      const s = session(w, "bad");
      if (s.meta) s.meta = { ...s.meta, name: "other" };
    },
    /names worker other/,
  ],
  [
    "a half-done takeover (the spare's meta in its new name's folder)",
    (w) => {
      const s = session(w, "bad");
      const pool = { key: "k", size: 1, ttlMs: 60_000, state: "spare" as const };
      if (s.meta) s.meta = { ...s.meta, name: "pool-1a2b3c4d", pool };
    },
    /a takeover of the spare pool-1a2b3c4d that did not finish/,
  ],
  [
    "a meta.json that does not parse",
    (w) => Object.assign(session(w, "bad"), { metaText: "{" }),
    /unreadable/,
  ],
  [
    "a corrupt queue.json",
    (w) => {
      const s = session(w, "bad");
      s.files = new Map([["queue.json", "not json"]]);
    },
    /queue of worker bad is unreadable/,
  ],
  [
    "an exit record beside a live pane",
    (w) => Object.assign(session(w, "bad"), { exit: { exitCode: 0 } }),
    /says its CLI exited, but its pane is alive/,
  ],
];

describe("a broken worker beside a healthy one", () => {
  test.each(BREAKS)(
    "%s: ls lists it as broken with the file, the reason and the fix",
    async (_, breakIt, says) => {
      const world = fleet(breakIt);
      const rows = await listWorkers(world.deps);
      expect(rows.map((r) => [r.name, r.state])).toEqual(
        [
          ["good", "idle"],
          ["bad", "broken"],
        ].sort() as [string, string][],
      );
      const bad = rows.find((r) => r.name === "bad") as StatusResult;
      expect(bad.broken?.reason).toMatch(says);
      expect(bad.broken?.file).toStartWith("/state/sessions/bad");
      expect(bad.broken?.fix).toContain("umbel kill bad --purge");
      expect(bad.pid).toBeNull();
    },
  );

  test.each(BREAKS)(
    "%s: status NAME is the typed error, and its message says how to fix it",
    async (_, breakIt) => {
      const world = fleet(breakIt);
      const error = await statusOf(world.deps, "bad").catch((e) => e);
      expect(error).toMatchObject({ exitCode: 1 });
      expect(String(error.message)).toMatch(/umbel kill bad --purge|remove that file|fix or remove/);
      expect((await statusOf(world.deps, "good")).state).toBe("idle");
    },
  );

  test.each(BREAKS)(
    "%s: kill --purge removes it and its tmux session; good is untouched",
    async (_, breakIt) => {
      const world = fleet(breakIt);
      expect(await killWorker(world.deps, { name: "bad", purge: true })).toMatchObject({
        name: "bad",
        state: "purged",
      });
      expect(world.sessions.has("bad")).toBe(false);
      expect(world.tmux.panes.has("bad")).toBe(false);
      expect(world.tmux.panes.has("good")).toBe(true);
      expect((await listWorkers(world.deps)).map((r) => r.name)).toEqual(["good"]);
    },
  );

  // prune reads meta.json and liveness, not the queue: a corrupt queue.json leaves a live worker live.
  const LOAD_BREAKS = BREAKS.filter(([what]) => !what.includes("queue"));
  test.each(LOAD_BREAKS)(
    "%s: prune keeps it while its tmux session is alive, then clears it",
    async (_, breakIt) => {
      const world = fleet(breakIt);
      const kept = await pruneWorkers(world.deps);
      expect(kept.removed).toEqual([]);
      expect(kept.kept).toEqual(["bad", "good"]);
      expect(kept.broken).toMatchObject([{ name: "bad", removed: false }]);
      expect(kept.broken?.[0]?.fix).toContain("umbel kill bad --purge");
      expect(world.tmux.panes.has("bad")).toBe(true);
      // Its pane dead: nothing of it runs, so prune clears it.
      Object.assign(world.tmux.panes.get("bad") ?? {}, { dead: true, deadStatus: 0, pid: null });
      const cleared = await pruneWorkers(world.deps);
      expect(cleared).toMatchObject({ removed: ["bad"], kept: ["good"] });
      expect(world.sessions.has("bad")).toBe(false);
      expect(world.tmux.panes.has("bad")).toBe(false);
      expect(world.tmux.panes.has("good")).toBe(true);
    },
  );

  test("a corrupt queue.json: prune leaves the live worker alone", async () => {
    const world = fleet(BREAKS[3]?.[1] ?? (() => undefined));
    expect(await pruneWorkers(world.deps)).toEqual({ removed: [], kept: ["bad", "good"] });
  });

  test("a broken meta.json beside no session at all: prune removes it and says it was broken", async () => {
    const world = fleet(BREAKS[0]?.[1] ?? (() => undefined));
    world.tmux.panes.delete("bad");
    expect(await pruneWorkers(world.deps)).toMatchObject({
      removed: ["bad"],
      kept: ["good"],
      broken: [{ name: "bad", removed: true, file: "/state/sessions/bad/meta.json" }],
    });
  });

  test("a hung tmux still fails ls (it is not one worker's fault)", async () => {
    const world = fleet(() => undefined);
    world.tmux.hang = "timeout";
    await expect(listWorkers(world.deps)).rejects.toMatchObject({ code: "tmux-timeout" });
  });

  test("a takeover's link goes with the broken worker kill --purge removes", async () => {
    const world = fleet(BREAKS[1]?.[1] ?? (() => undefined));
    world.aliases.set("pool-1a2b3c4d", "bad");
    await killWorker(world.deps, { name: "bad", purge: true });
    expect(world.aliases.has("pool-1a2b3c4d")).toBe(false);
  });
});

describe("doctor's workers check", () => {
  test("names each broken worker, with its fix", () => {
    const row = (name: string, state: StatusResult["state"], extra: Partial<StatusResult> = {}) =>
      ({ name, state, createdAt: new Date(0).toISOString(), ...extra }) as StatusResult;
    const facts = {
      now: 0,
      workers: {
        error: null,
        list: [
          row("good", "idle"),
          row("bad", "broken", {
            broken: { file: "/s/bad/meta.json", reason: "names worker x", fix: "umbel kill bad --purge" },
          }),
        ],
      },
    } as unknown as DoctorFacts;
    const check = checkWorkers(facts);
    expect(check.status).toBe("warn");
    expect(check.message).toContain("1 broken (bad: /s/bad/meta.json)");
    expect(check.fix).toContain("umbel kill bad --purge");
  });
});
