import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import type { Outcome } from "../../../src/core/wait/outcome.ts";
import { noteLimit, noteWindows } from "../../../src/operations/accounts/record.ts";
import { waitForTurns } from "../../../src/operations/fleet/wait-many.ts";
import { statusOf } from "../../../src/operations/worker/status.ts";
import { IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

/** Each account's record (issue 24 §2): the windows a worker's telemetry shows, and the limits its turns meet. */

const TX = "/t/s.jsonl";
const STATUS_LINE = JSON.stringify({
  model: { id: "claude-opus-5-5" },
  cost: { total_cost_usd: 0.01 },
  rate_limits: {
    five_hour: { used_percentage: 93, resets_at: 1796168486 },
    seven_day: { used_percentage: 42, resets_at: 1796364886 },
  },
});

function worker(account?: string): FakeWorld {
  const w = createFakeWorld();
  addWorker(w, "w1", { screen: IDLE });
  const s = w.sessions.get("w1");
  if (s?.meta && account) s.meta = { ...s.meta, account };
  w.files.set(TX, "");
  w.files.set(join("/state", "sessions", "w1", "events", "statusline.json"), STATUS_LINE);
  w.hook("w1", { hook_event_name: "SessionStart", session_id: "S", transcript_path: TX });
  return w;
}

const limited = (evidence: Outcome["evidence"]): Outcome => ({
  reason: "limited",
  exitCode: 120,
  name: "w1",
  baseline: 1,
  elapsedMs: 5,
  evidence,
});
const LIMIT = { window: "five_hour", resetsAt: "2026-12-03T15:00:00.000Z", message: "You've hit your limit" };

describe("an account's windows, from the telemetry umbel reads", () => {
  test("status of a worker on an account: that account's record holds its windows, when and from whom", async () => {
    const w = worker("work");
    const status = await statusOf(w.deps, "w1");
    expect(status.telemetry?.windows).toHaveLength(2);
    const known = await w.deps.store.readAccountWindows("claude", "work");
    expect(known.windows.map((x) => [x.name, x.usedPercent])).toEqual([
      ["five_hour", 93],
      ["seven_day", 42],
    ]);
    expect(known).toMatchObject({ from: "w1", seenAt: new Date(w.clock.now()).toISOString() });
    expect((await w.deps.store.readAccountWindows("claude", null)).seenAt).toBeNull();
  });

  test("a worker on the default sign-in: the provider's default record", async () => {
    const w = worker();
    await statusOf(w.deps, "w1");
    expect((await w.deps.store.readAccountWindows("claude", null)).windows).toHaveLength(2);
  });

  test("a record that cannot be written never fails the verb: a trace mark instead", async () => {
    const marks: string[] = [];
    const w = worker("work");
    w.deps.store.updateAccountWindows = async () => {
      throw new Error("EROFS");
    };
    (w.deps as { trace: unknown }).trace = { on: true, mark: (m: string) => void marks.push(m) };
    expect((await statusOf(w.deps, "w1")).telemetry?.windows).toHaveLength(2);
    expect(marks.some((m) => m.includes("accounts") && m.includes("EROFS"))).toBe(true);
  });

  test("no windows (an API-key session): nothing written", async () => {
    const w = worker("work");
    const meta = w.sessions.get("w1")?.meta;
    if (!meta) throw new Error("no meta");
    await noteWindows(w.deps, meta, null);
    await noteWindows(w.deps, meta, { windows: [] });
    expect((await w.deps.store.readAccountWindows("claude", "work")).seenAt).toBeNull();
  });
});

describe("an account's last limit, from a turn that ended limited", () => {
  test("a usage limit: recorded on the worker's account", async () => {
    const w = worker("work");
    const meta = w.sessions.get("w1")?.meta;
    if (!meta) throw new Error("no meta");
    await noteLimit(w.deps, meta, limited({ limit: LIMIT }));
    expect((await w.deps.store.readAccountWindows("claude", "work")).lastLimit).toEqual({
      at: new Date(w.clock.now()).toISOString(),
      worker: "w1",
      limit: LIMIT,
    });
  });

  test.each([
    [
      "a token budget",
      {
        limit: { window: "max-tokens", resetsAt: null, message: null },
        budget: { unit: "tokens" as const, limit: 10, used: 12 },
      },
    ],
    ["a cost budget", { limit: { window: "max-budget-usd", resetsAt: null, message: null } }],
    ["no limit in the evidence", {}],
  ])("%s: the caller's, never the account's", async (_what, evidence) => {
    const w = worker("work");
    const meta = w.sessions.get("w1")?.meta;
    if (!meta) throw new Error("no meta");
    await noteLimit(w.deps, meta, limited(evidence));
    expect((await w.deps.store.readAccountWindows("claude", "work")).lastLimit).toBeNull();
  });

  test("another outcome: nothing", async () => {
    const w = worker();
    const meta = w.sessions.get("w1")?.meta;
    if (!meta) throw new Error("no meta");
    await noteLimit(w.deps, meta, { reason: "stop", evidence: { limit: LIMIT } });
    expect((await w.deps.store.readAccountWindows("claude", null)).lastLimit).toBeNull();
  });
});

describe("the seam: wait's end", () => {
  const LIMIT_TEXT = "You've hit your 5-hour limit · resets 12:04pm (UTC) · out of usage credits";
  const limitLine = (resetS: number) =>
    `${JSON.stringify({
      type: "assistant",
      message: { id: "e1", model: "<synthetic>", content: [{ type: "text", text: LIMIT_TEXT }] },
      apiError: "usage_limit_reached",
      apiErrorParams: {
        rate_limit_info: { status: "rejected", resetsAt: resetS, rateLimitType: "five_hour" },
      },
      error: "rate_limit",
      isApiErrorMessage: true,
    })}\n`;

  test("a wait that ends limited at a usage limit: the worker's account keeps the limit", async () => {
    const w = worker("work");
    const human = { type: "user", promptId: "p1", origin: { kind: "human" }, message: { content: "hi" } };
    w.files.set(TX, `${JSON.stringify(human)}\n${limitLine(1_000_000 + 3600)}`);
    w.hook(
      "w1",
      { hook_event_name: "UserPromptSubmit", session_id: "S", prompt_id: "p1", prompt: "hi" },
      {
        hook_event_name: "StopFailure",
        session_id: "S",
        error: "rate_limit",
        last_assistant_message: LIMIT_TEXT,
      },
    );
    const outcome = await waitForTurns(w.deps, { name: "w1", after: 1 });
    expect(outcome.reason).toBe("limited");
    const known = await w.deps.store.readAccountWindows("claude", "work");
    expect(known.lastLimit).toMatchObject({ worker: "w1", limit: { window: "five_hour" } });
    // The wait's telemetry read its windows too.
    expect(known.windows).toHaveLength(2);
  });
});
