import { expect, test } from "bun:test";
import { waitProgress } from "../../../src/faces/mcp/progress.ts";

/** umbel_wait's progress notifications, the limited phase of --on-limit continue included. */
test("the turn's state once a second; waiting through a usage limit names it and its reset", () => {
  const sent: { progress: number; total?: number; message: string }[] = [];
  const report = waitProgress((u) => sent.push(u), 60_000);
  report?.({ elapsedMs: 100, turn: "running" });
  report?.({ elapsedMs: 200, turn: "running" });
  const limit = { window: "five_hour", resetsAt: "2026-12-01T16:09:38.000Z", message: "x" };
  report?.({ elapsedMs: 300, turn: "failure", limited: limit });
  report?.({ elapsedMs: 400, turn: "failure", limited: limit, failingOver: true });
  expect(sent.map((u) => u.message)).toEqual([
    "busy · 100ms of 1m",
    "limited (five_hour), waiting for the reset at 2026-12-01T16:09:38.000Z · 300ms of 1m",
    "limited (five_hour), moving to another account · 400ms of 1m",
  ]);
  expect(sent.map((u) => u.total)).toEqual([60_000, 60_000, 60_000]);
});
