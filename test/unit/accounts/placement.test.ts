import { describe, expect, test } from "bun:test";
import {
  type AccountWindows,
  type PlacementCandidate,
  placeAccount,
  sawLimit,
  sawWindows,
  unseen,
} from "../../../src/core/accounts/placement.ts";

/** Placement by headroom (issue 24 §2), as a table over accounts' last-seen windows and limits. */
const NOW = Date.parse("2026-12-03T12:00:00Z");
const LATER = "2026-12-03T15:00:00Z";
const EARLIER = "2026-12-03T11:00:00Z";

const seen = (account: string | null, fiveHour: number, sevenDay = 0, resetsAt = LATER): AccountWindows => ({
  ...unseen("claude", account),
  windows: [
    { name: "five_hour", usedPercent: fiveHour, resetsAt, minutes: 300 },
    { name: "seven_day", usedPercent: sevenDay, resetsAt: "2026-12-09T00:00:00Z", minutes: 10080 },
  ],
  seenAt: EARLIER,
  from: "w",
});
const limited = (account: string | null, resetsAt: string | null, at = EARLIER): AccountWindows => ({
  ...unseen("claude", account),
  lastLimit: { at, worker: "w1", limit: { window: "five_hour", resetsAt, message: null } },
});
const c = (
  account: string | null,
  known: AccountWindows | null,
  live = 0,
  billing: PlacementCandidate["billing"] = "subscription",
): PlacementCandidate => ({ account, billing, live, known });

describe("placeAccount", () => {
  const cases: [string, PlacementCandidate[], string | null | "none"][] = [
    ["the most headroom wins", [c("a", seen("a", 80)), c("b", seen("b", 20))], "b"],
    ["the most-used window counts (seven_day)", [c("a", seen("a", 10, 95)), c("b", seen("b", 50))], "b"],
    [
      "near equals (one 10% step): the fewest live workers",
      [c("a", seen("a", 41), 0), c("b", seen("b", 45), 3)],
      "a",
    ],
    ["near equals, same live: the default sign-in first", [c("b", null), c(null, null)], null],
    ["equal unknowns: by name", [c("b", null), c("a", null)], "a"],
    ["an unseen account counts as full headroom", [c("a", seen("a", 5)), c("b", null)], "b"],
    ["a window at 100% is skipped until its reset", [c("a", seen("a", 100)), c("b", seen("b", 90))], "b"],
    [
      "a window at 100% whose reset passed counts as reset",
      [c("a", seen("a", 100, 0, EARLIER)), c("b", seen("b", 60))],
      "a",
    ],
    ["a limit not yet reset is skipped", [c("a", limited("a", LATER)), c("b", seen("b", 70))], "b"],
    ["a limit whose reset passed is not", [c("a", limited("a", EARLIER)), c("b", seen("b", 70))], "a"],
    ["a limit with no reset keeps it out 5 h", [c("a", limited("a", null)), c("b", seen("b", 70))], "b"],
    ["... and no longer", [c("a", limited("a", null, "2026-12-03T06:00:00Z")), c("b", seen("b", 70))], "a"],
    ["an API-key account is never picked", [c("k", null, 0, "api-key"), c("a", seen("a", 95))], "a"],
    ["nor a cloud one", [c("k", null, 0, "cloud")], "none"],
    ["all exhausted: none", [c("a", seen("a", 100)), c("b", limited("b", LATER))], "none"],
    ["no accounts: none", [], "none"],
  ];
  test.each(cases)("%s", (_what, candidates, expected) => {
    const d = placeAccount(candidates, NOW);
    expect(d.placed ? d.placement.account : "none").toBe(expected);
  });

  test("the decision says why, and how it saw every account", () => {
    const d = placeAccount(
      [c("a", seen("a", 80), 1), c("b", limited("b", LATER)), c("k", null, 0, "api-key")],
      NOW,
    );
    expect(d.placed).toBe(true);
    if (!d.placed) return;
    expect(d.placement.reason).toBe("a: the only account with headroom (20% headroom, 1 live worker)");
    expect(d.placement.considered).toEqual([
      { account: "a", headroomPercent: 20, live: 1, skipped: null, resetsAt: null },
      {
        account: "b",
        headroomPercent: null,
        live: 0,
        skipped: `w1 met its five_hour limit at ${EARLIER}, resetting ${LATER}`,
        resetsAt: LATER,
      },
      {
        account: "k",
        headroomPercent: null,
        live: 0,
        skipped: "bills an API key: used only when named",
        resetsAt: null,
      },
    ]);
  });

  test("none: the earliest reset across the exhausted accounts", () => {
    const d = placeAccount(
      [c("a", seen("a", 100, 0, LATER)), c("b", limited("b", "2026-12-03T13:30:00Z"))],
      NOW,
    );
    expect(d.placed).toBe(false);
    if (d.placed) return;
    expect(d.earliestReset).toBe("2026-12-03T13:30:00Z");
    expect(d.reason).toBe("no account has headroom (the earliest reset is 2026-12-03T13:30:00Z)");
  });

  test("a failover leaves its own account out", () => {
    const d = placeAccount([c("a", seen("a", 0)), c("b", seen("b", 50))], NOW, ["a"]);
    expect(d.placed && d.placement.account).toBe("b");
    const none = placeAccount([c("a", seen("a", 0))], NOW, ["a"]);
    expect(none.placed).toBe(false);
  });
});

describe("the record of an account's windows", () => {
  const windows = seen("a", 30).windows;
  test("a reading replaces an older one, never a newer one; an empty one changes nothing", () => {
    const first = sawWindows(unseen("claude", "a"), { windows, at: EARLIER, worker: "w1" });
    expect(first).toMatchObject({ seenAt: EARLIER, from: "w1", windows });
    const older = sawWindows(first, { windows: [], at: LATER, worker: "w2" });
    expect(older).toBe(first);
    const stale = sawWindows(first, {
      windows: seen("a", 99).windows,
      at: "2026-12-03T10:00:00Z",
      worker: "w3",
    });
    expect(stale).toBe(first);
  });
  test("an idle worker's reading of the same period never lowers the account's (usage only grows within one)", () => {
    const busy = sawWindows(unseen("claude", "a"), {
      windows: seen("a", 80).windows,
      at: EARLIER,
      worker: "w1",
    });
    // w2 idled since before w1's turns: its statusline still says 30% for the same five_hour period.
    const idle = sawWindows(busy, { windows: seen("a", 30).windows, at: LATER, worker: "w2" });
    expect(idle).toBe(busy);
    // Its seven_day was further along: that window is taken, the reading stays w1's.
    const further = sawWindows(busy, { windows: seen("a", 30, 12).windows, at: LATER, worker: "w2" });
    expect(further.windows.map((w) => w.usedPercent)).toEqual([80, 12]);
    expect(further).toMatchObject({ seenAt: EARLIER, from: "w1" });
  });
  test("a new period (a later reset) replaces the window even when lower; an equal reading is a fresh one", () => {
    const before = sawWindows(unseen("claude", "a"), {
      windows: seen("a", 80).windows,
      at: EARLIER,
      worker: "w1",
    });
    const next = seen("a", 5, 0, "2026-12-03T20:00:00Z").windows;
    const after = sawWindows(before, { windows: next, at: LATER, worker: "w2" });
    expect(after).toMatchObject({ windows: next, seenAt: LATER, from: "w2" });
    const again = sawWindows(after, { windows: next, at: "2026-12-03T16:00:00Z", worker: "w3" });
    expect(again).toMatchObject({ seenAt: "2026-12-03T16:00:00Z", from: "w3" });
  });
  test("an equal reading within 30 s of the last changes nothing (ls reads every worker of an account)", () => {
    const first = sawWindows(unseen("claude", "a"), { windows, at: "2026-12-03T12:00:00Z", worker: "w1" });
    expect(sawWindows(first, { windows, at: "2026-12-03T12:00:20Z", worker: "w2" })).toBe(first);
    expect(sawWindows(first, { windows, at: "2026-12-03T12:00:40Z", worker: "w2" })).toMatchObject({
      seenAt: "2026-12-03T12:00:40Z",
      from: "w2",
    });
  });
  test("the newer limit is kept", () => {
    const limit = { window: "five_hour", resetsAt: LATER, message: null };
    const a = sawLimit(unseen("codex", "a"), { limit, at: LATER, worker: "w1" });
    expect(sawLimit(a, { limit, at: EARLIER, worker: "w2" })).toBe(a);
    expect(a.lastLimit).toEqual({ at: LATER, worker: "w1", limit });
  });
});
