import { describe, expect, test } from "bun:test";
import { drive } from "../../../src/core/common/drive.ts";

/** A countdown machine: each tick takes one off; at zero it is done with the ticks it saw. */
type State = { left: number; seen: number[] };
type Command = { kind: "tick"; at: number } | { kind: "done"; total: number };

const step = (state: State, seen: number) => {
  const next = { left: state.left - 1, seen: [...state.seen, seen] };
  const command: Command =
    next.left <= 0 ? { kind: "done", total: next.seen.length } : { kind: "tick", at: seen + 1 };
  return { state: next, next: command };
};

describe("drive: the one loop every machine runs under", () => {
  test("steps on what each command brought back until the machine is done", async () => {
    const performed: number[] = [];
    const result = await drive({
      state: { left: 3, seen: [] } as State,
      first: 10,
      step,
      isEnd: (c: Command): c is Extract<Command, { kind: "done" }> => c.kind === "done",
      end: (c, state) => ({ total: c.total, seen: state.seen }),
      perform: async (c) => {
        performed.push(c.at);
        return c.at;
      },
    });
    expect(result).toEqual({ total: 3, seen: [10, 11, 12] });
    expect(performed).toEqual([11, 12]);
  });

  test("a machine done at once performs nothing", async () => {
    let performed = 0;
    const result = await drive({
      state: { left: 1, seen: [] } as State,
      first: 0,
      step,
      isEnd: (c: Command): c is Extract<Command, { kind: "done" }> => c.kind === "done",
      end: (c) => c.total,
      perform: async () => {
        performed++;
        return 0;
      },
    });
    expect(result).toBe(1);
    expect(performed).toBe(0);
  });

  test("a failing command's error is the drive's", async () => {
    const run = drive({
      state: { left: 5, seen: [] } as State,
      first: 0,
      step,
      isEnd: (c: Command): c is Extract<Command, { kind: "done" }> => c.kind === "done",
      end: (c) => c.total,
      perform: async () => {
        throw new Error("tmux hung");
      },
    });
    await expect(run).rejects.toThrow("tmux hung");
  });
});
