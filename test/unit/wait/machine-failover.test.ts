// The wait machine with --on-limit failover (docs/accounts.md, "Failover"), on the scripted world of
// machine-limits.test.ts: a limited turn is handed to the driver (`failover`), which moves the worker
// to another account and continues the turn, or says there is no headroom, or that the move failed.
import { describe, expect, test } from "bun:test";
import type { FailoverMove, FailoverResult } from "../../../src/core/accounts/failover.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";
import type { WaitConfig } from "../../../src/core/wait/types.ts";
import { BUSY, IDLE } from "../../fixtures/claude-screens.ts";
import { runWait, type World } from "../../helpers/machine-world.ts";

const claude = getProvider("claude");
const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });
const START = ev("SessionStart", { transcript_path: "/a/projects/p/S.jsonl" });
const SUBMIT = ev("UserPromptSubmit", { prompt_id: "p1", prompt: "hi" });
const config = (over: Partial<WaitConfig> = {}): WaitConfig => ({
  provider: claude,
  baseline: 1,
  startedAt: 0,
  deadline: 600_000,
  idleTimeoutMs: null,
  killed: false,
  onLimit: "failover",
  ...over,
});
const iso = (s: number) => new Date(s * 1000).toISOString();
const LIMIT_TEXT = "You've hit your 5-hour limit · resets 12:04pm (UTC)";
const limitLine = (promptId: string) => ({
  type: "assistant",
  promptId,
  message: { id: `e-${promptId}`, model: "<synthetic>", content: [{ type: "text", text: LIMIT_TEXT }] },
  apiError: "usage_limit_reached",
  apiErrorParams: { rate_limit_info: { status: "rejected", resetsAt: 3600, rateLimitType: "five_hour" } },
  error: "rate_limit",
  isApiErrorMessage: true,
});
const user = (promptId: string) => ({
  type: "user",
  promptId,
  origin: { kind: "human" },
  message: { role: "user", content: "hi" },
});
const jsonl = (...lines: object[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join("");
const LIMIT_HOOK = ev("StopFailure", { error: "rate_limit", last_assistant_message: LIMIT_TEXT });
const LIMIT = { window: "five_hour", resetsAt: iso(3600), message: LIMIT_TEXT };
const move = (from: string | null, to: string | null): FailoverMove => ({
  from,
  to,
  limit: LIMIT,
  at: "2026-12-03T10:00:00.000Z",
  carried: "resumed",
});
/** The relaunched worker: its SessionStart, then the continuation prompt's turn. */
const continued = (promptId: string, end: object): (readonly [number, object])[] => [
  [0, ev("SessionStart", { source: "resume", transcript_path: "/b/projects/p/S.jsonl" })],
  [10, ev("UserPromptSubmit", { prompt_id: promptId, prompt: "Your usage limit has reset." })],
  [900, end],
];
const limitedWorld = (over: Partial<World> = {}): World => ({
  events: [
    [0, START],
    [0, SUBMIT],
    [400, LIMIT_HOOK],
  ],
  transcript: [[390, jsonl(user("p1"), limitLine("p1"))]],
  screens: [
    [0, BUSY],
    [450, IDLE],
  ],
  ...over,
});

describe("--on-limit failover", () => {
  test("moved: the continued turn's stop ends the wait, its evidence lists the move, the baseline is the new turn's", () => {
    const run = runWait(
      config(),
      limitedWorld({
        onFailover: () => ({
          result: { status: "moved", move: move("a", "b"), baseline: 0 },
          brings: continued("p2", ev("Stop", { prompt_id: "p2", last_assistant_message: "done on b" })),
        }),
      }),
    );
    expect(run.failovers.map(([, left]) => left)).toEqual([[]]);
    expect(run.reason).toBe("stop");
    expect(run.baseline).toBe(3);
    expect(run.evidence).toMatchObject({ message: "done on b", failover: [move("a", "b")] });
    expect(run.evidence.continued).toBeUndefined();
    // No /rate-limit-options look before the move: the TUI is relaunched at once.
    expect(run.failovers[0]?.[0]).toBeLessThan(3500);
  });

  const ends: [string, FailoverResult, Record<string, unknown>][] = [
    [
      "no account has headroom: limited, with the earliest reset across the accounts",
      { status: "not-placed", earliestReset: iso(1800), reason: "no account has headroom" },
      { earliestReset: iso(1800), limit: LIMIT, detail: "failover: no account has headroom" },
    ],
    [
      "the move failed: limited, saying why",
      { status: "failed", error: "account b's CLI sat on a sign-in screen" },
      { limit: LIMIT, detail: "failover failed: account b's CLI sat on a sign-in screen" },
    ],
    [
      "the move failed after the old TUI was stopped: the half move is listed",
      { status: "failed", error: "not ready", move: move("a", "b") },
      { limit: LIMIT, failover: [move("a", "b")] },
    ],
  ];
  test.each(ends)("%s", (_name, result, evidence) => {
    const run = runWait(config(), limitedWorld({ onFailover: () => ({ result }) }));
    expect(run.reason).toBe("limited");
    expect(run.evidence).toMatchObject({ error: "rate_limit", ...evidence });
    expect(run.failovers.length).toBe(1);
  });

  test("a continued turn limited again fails over again, never back to an account it left (no ping-pong)", () => {
    let calls = 0;
    const run = runWait(
      config(),
      limitedWorld({
        transcript: [[390, jsonl(user("p1"), limitLine("p1"), user("p2"), limitLine("p2"))]],
        onFailover: () => {
          calls++;
          if (calls === 1)
            return {
              result: { status: "moved", move: move("a", "b"), baseline: 0 },
              brings: continued("p2", ev("StopFailure", { prompt_id: "p2", error: "rate_limit" })),
            };
          return {
            result: { status: "not-placed", earliestReset: iso(3600), reason: "no account has headroom" },
          };
        },
      }),
    );
    expect(run.failovers.map(([, left]) => left)).toEqual([[], ["a"]]);
    expect(run.reason).toBe("limited");
    expect(run.evidence).toMatchObject({ earliestReset: iso(3600), failover: [move("a", "b")] });
  });

  test("--on-limit stop never asks for a failover", () => {
    const run = runWait(
      config({ onLimit: "stop" }),
      limitedWorld({ onFailover: () => ({ result: { status: "failed", error: "x" } }) }),
    );
    expect(run.reason).toBe("limited");
    expect(run.failovers).toEqual([]);
    expect(run.evidence.failover).toBeUndefined();
  });

  test("a caller's budget is never failed over: limited with the budget", () => {
    const run = runWait(
      config({ budget: { maxTokens: 10 } }),
      limitedWorld({
        events: [
          [0, START],
          [0, SUBMIT],
        ],
        transcript: [
          [
            100,
            jsonl(user("p1"), {
              type: "assistant",
              promptId: "p1",
              message: {
                id: "m1",
                content: [{ type: "text", text: "…" }],
                usage: { input_tokens: 50, output_tokens: 5 },
              },
            }),
          ],
        ],
        screens: [[0, BUSY]],
        onFailover: () => ({ result: { status: "failed", error: "x" } }),
      }),
    );
    expect(run.reason).toBe("limited");
    expect(run.evidence).toMatchObject({ budget: { unit: "tokens", limit: 10 } });
    expect(run.failovers).toEqual([]);
    expect(run.evidence.failover).toBeUndefined();
  });

  test("aborted while the driver moves the worker: aborted", () => {
    const run = runWait(
      config(),
      limitedWorld({
        abortAt: 420,
        onFailover: () => ({ result: { status: "moved", move: move("a", "b"), baseline: 0 }, moveMs: 5000 }),
      }),
    );
    expect(run.reason).toBe("aborted");
  });

  test("a limit at the deadline: timeout, no failover", () => {
    const run = runWait(
      config({ deadline: 400 }),
      limitedWorld({ onFailover: () => ({ result: { status: "failed", error: "x" } }) }),
    );
    expect(run.failovers).toEqual([]);
    expect(run.reason).toBe("timeout");
  });
});
