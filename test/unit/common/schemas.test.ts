import { describe, expect, test } from "bun:test";
import {
  clampTimerMs,
  MAX_DURATION_MS,
  MAX_TIMER_MS,
  parseDuration,
} from "../../../src/core/common/duration.ts";
import { Duration, WaitInput, WorkerName } from "../../../src/core/schemas.ts";
import { SpawnInput } from "../../../src/core/spawn/input.ts";

describe("worker names", () => {
  test.each(["a", "w1", "review-2", "0abc", "a".repeat(63)])("accepts %p", (name) => {
    expect(WorkerName.safeParse(name).success).toBe(true);
  });
  test.each(["", "-a", "A", "a_b", "a b", "a".repeat(64), "../x", "a.b"])("rejects %p", (name) => {
    expect(WorkerName.safeParse(name).success).toBe(false);
  });
});

describe("durations", () => {
  test.each([
    ["90s", 90_000],
    ["10m", 600_000],
    ["1h30m", 5_400_000],
    ["1500ms", 1500],
    ["12", 12_000],
    [2, 2000],
    ["0.5s", 500],
  ] as const)("%p → %p ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });
  test.each([
    "",
    "abc",
    "10x",
    "m10",
    "-5s",
    "10m junk",
    "1e400s",
    "1e400",
    "1e3",
    "NaN",
    "Infinity",
    "-1",
    ".5s",
    "5.s",
    "9".repeat(400),
    `${"9".repeat(400)}s`,
    "١s",
  ])("rejects %p", (text) => {
    expect(parseDuration(text)).toBeNull();
  });
  test.each([Number.NaN, Number.POSITIVE_INFINITY, -1, Number.MAX_VALUE])("rejects the number %p", (n) => {
    expect(parseDuration(n)).toBeNull();
  });
  test("the maximum is 7 days: it fits every timer (2^31-1 ms, about 24.8 days) with margin", () => {
    expect(MAX_DURATION_MS).toBe(7 * 24 * 3_600_000);
    expect(MAX_DURATION_MS * 3).toBeLessThan(MAX_TIMER_MS);
    expect(Duration.parse("168h")).toBe(MAX_DURATION_MS);
    expect(Duration.parse(604_800)).toBe(MAX_DURATION_MS);
  });
  test.each(["99999999h", "2147484s", "168h1ms", 604_801, 1e300])(
    "%p is past the maximum: a clear message",
    (value) => {
      const r = WaitInput.safeParse({ name: "w", timeout: value });
      expect(r.success).toBe(false);
      expect(r.error?.issues[0]?.message).toContain("at most 168h (7 days)");
    },
  );
  test.each([
    [-5, 0],
    [Number.NaN, 0],
    [0, 0],
    [1500, 1500],
    [2 ** 31 - 1, 2 ** 31 - 1],
    [2 ** 31, 2 ** 31 - 1],
    [Number.POSITIVE_INFINITY, 2 ** 31 - 1],
  ])("a timer delay of %p is clamped to %p", (ms, clamped) => {
    expect(clampTimerMs(ms)).toBe(clamped);
  });
  test("a wait timeout parses to milliseconds", () => {
    expect(WaitInput.parse({ name: "w", timeout: "2m", idleTimeout: 5 })).toEqual({
      name: "w",
      timeout: 120_000,
      idleTimeout: 5000,
    });
  });
  test("a bad duration is a clear message", () => {
    const r = WaitInput.safeParse({ name: "w", timeout: "soon" });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toContain("not a duration");
  });
});

describe("spawn input", () => {
  test("leaves an absent provider absent (the face fills the default) and rejects unknown keys", () => {
    expect(SpawnInput.parse({ name: "w" })).toEqual({ name: "w" });
    expect(SpawnInput.parse({ name: "w", provider: "codex" }).provider).toBe("codex");
    expect(SpawnInput.safeParse({ name: "w", bogus: 1 }).success).toBe(false);
  });
  test("env values are strings or {fromEnv}", () => {
    expect(SpawnInput.safeParse({ name: "w", env: { A: "1", B: { fromEnv: "HOST_B" } } }).success).toBe(true);
    expect(SpawnInput.safeParse({ name: "w", env: { "1A": "x" } }).success).toBe(false);
    expect(SpawnInput.safeParse({ name: "w", env: { A: { fromEnv: "bad name" } } }).success).toBe(false);
  });
});
