import { describe, expect, test } from "bun:test";
import { parseDuration } from "../../src/core/duration.ts";
import { SpawnInput, WaitInput, WorkerName } from "../../src/core/schemas.ts";

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
  test.each(["", "abc", "10x", "m10", "-5s", "10m junk"])("rejects %p", (text) => {
    expect(parseDuration(text)).toBeNull();
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
  test("defaults the provider to claude and rejects unknown keys", () => {
    expect(SpawnInput.parse({ name: "w" }).provider).toBe("claude");
    expect(SpawnInput.safeParse({ name: "w", bogus: 1 }).success).toBe(false);
  });
  test("env values are strings or {fromEnv}", () => {
    expect(SpawnInput.safeParse({ name: "w", env: { A: "1", B: { fromEnv: "HOST_B" } } }).success).toBe(true);
    expect(SpawnInput.safeParse({ name: "w", env: { "1A": "x" } }).success).toBe(false);
    expect(SpawnInput.safeParse({ name: "w", env: { A: { fromEnv: "bad name" } } }).success).toBe(false);
  });
});
