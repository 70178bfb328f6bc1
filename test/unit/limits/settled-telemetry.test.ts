// `wait` hands back the turn's own numbers: claude 2.1.332 rewrites its statusline JSON (cost,
// windows) ~0.4 s after Stop (measured on the stub), so the outcome's telemetry waits for the
// version written for this very turn: its prompt_id, and the usage of the turn's last message.
import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { claudeTurnSettled } from "../../../src/core/providers/claude/telemetry.ts";
import { waitForTurns } from "../../../src/operations/fleet/wait-many.ts";
import { statusOf } from "../../../src/operations/worker/status.ts";
import { BUSY, IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";

const jsonl = (...lines: object[]) => lines.map((l) => `${JSON.stringify(l)}\n`).join("");
const human = (id: string) => ({
  type: "user",
  promptId: id,
  origin: { kind: "human" },
  message: { content: id },
});
const reply = (id: string, usage: object, text = "x") => ({
  type: "assistant",
  message: { id, model: "claude-opus-5-5", content: [{ type: "text", text }], usage },
});
const ended = { type: "system", subtype: "turn_duration", durationMs: 900 };
const U1 = {
  input_tokens: 3264,
  output_tokens: 10,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};
const U2 = {
  input_tokens: 3291,
  output_tokens: 22,
  cache_read_input_tokens: 0,
  cache_creation_input_tokens: 0,
};
/** The statusline JSON as claude 2.1.332 writes it for a subscriber (trimmed to what umbel reads). */
const statusLine = (promptId: string | null, usage: object | null, cost: number, windows = true) =>
  JSON.stringify({
    ...(promptId ? { prompt_id: promptId } : {}),
    model: { id: "claude-opus-5-5" },
    cost: { total_cost_usd: cost },
    context_window: { current_usage: usage, used_percentage: usage ? 0 : null },
    ...(windows
      ? {
          rate_limits: {
            five_hour: { used_percentage: 93, resets_at: 1796168486 },
            seven_day: { used_percentage: 42, resets_at: 1796364886 },
          },
        }
      : {}),
  });

describe("claude: is the statusline this turn's?", () => {
  const tx = jsonl(
    human("p1"),
    reply("m1", U1),
    ended,
    human("p2"),
    reply("m2a", U1),
    reply("m2b", U2),
    ended,
  );
  test.each([
    ["this turn's prompt and its last message's usage", statusLine("p2", U2, 0.02), tx, "p2", true],
    ["the turn before's (another prompt id)", statusLine("p1", U1, 0.01), tx, "p2", false],
    ["the first JSON, written at start (no prompt id)", statusLine(null, null, 0, false), tx, "p2", false],
    [
      "this turn's, but from its first message (a tool turn mid-way)",
      statusLine("p2", U1, 0.015),
      tx,
      "p2",
      false,
    ],
    [
      "this turn's, but the transcript has not ended the turn yet",
      statusLine("p2", U2, 0.02),
      jsonl(human("p2"), reply("m2b", U2)),
      "p2",
      false,
    ],
    [
      "a turn with no usage (an API error): the prompt id is enough",
      statusLine("p3", null, 0.02),
      jsonl(human("p3"), { type: "assistant", isApiErrorMessage: true, message: { id: "e", content: [] } }),
      "p3",
      true,
    ],
    [
      "after a usage limit: a prompt id of no earlier turn (claude's /rate-limit-options), no usage",
      statusLine("p-menu", U1, 0.01),
      jsonl(human("p1"), reply("m1", U1), ended, human("p4"), {
        type: "assistant",
        isApiErrorMessage: true,
        message: { id: "e", content: [], usage: { input_tokens: 0, output_tokens: 0 } },
      }),
      "p4",
      true,
    ],
    [
      "this turn's prompt id, written as the prompt was taken: the answer is not in the transcript yet",
      statusLine("p2", U1, 0.01),
      jsonl(human("p1"), reply("m1", U1), ended, human("p2")),
      "p2",
      false,
    ],
    [
      "the turn before's, and the transcript does not hold this turn's prompt yet",
      statusLine("p2", U2, 0.02),
      jsonl(human("p1"), reply("m1", U1), ended, human("p2"), reply("m2b", U2), ended),
      "p3",
      false,
    ],
    ["no statusline yet", null, tx, "p2", false],
  ])("%s", (_what, sl, transcript, promptId, settled) => {
    expect(claudeTurnSettled({ statusLine: sl, transcript }, promptId)).toBe(settled);
  });
});

describe("wait's outcome carries the turn's settled telemetry (in memory)", () => {
  const TX = "/t/s.jsonl";
  const SL = join("/state", "sessions", "w1", "events", "statusline.json");
  /** A claude worker whose second turn (p2) ended: Stop fired, then the transcript and the statusline. */
  function endedTurn(rewriteAfterMs: number | null): FakeWorld {
    const world = createFakeWorld();
    addWorker(world, "w1", { screen: BUSY });
    world.files.set(TX, jsonl(human("p1"), reply("m1", U1), ended, human("p2")));
    world.files.set(SL, statusLine("p1", U1, 0.013256));
    world.hook(
      "w1",
      { hook_event_name: "SessionStart", session_id: "S", transcript_path: TX },
      { hook_event_name: "UserPromptSubmit", session_id: "S", prompt_id: "p1", prompt: "one" },
      { hook_event_name: "Stop", session_id: "S", last_assistant_message: "x" },
      { hook_event_name: "UserPromptSubmit", session_id: "S", prompt_id: "p2", prompt: "two" },
      { hook_event_name: "Stop", session_id: "S", last_assistant_message: "second" },
    );
    // claude fires Stop before it flushes the answer (200-400 ms) and redraws its statusline after.
    world.clock.at(world.clock.now() + 250, () => {
      world.files.set(TX, `${world.files.get(TX)}${jsonl(reply("m2", U2, "second"), ended)}`);
      Object.assign(world.tmux.panes.get("w1") ?? {}, { screen: IDLE });
    });
    if (rewriteAfterMs !== null)
      world.clock.at(world.clock.now() + rewriteAfterMs, () =>
        world.files.set(SL, statusLine("p2", U2, 0.02686)),
      );
    return world;
  }

  test("the outcome waits for the statusline written for this turn: its cost, windows and tokens; status agrees", async () => {
    const world = endedTurn(400);
    const started = world.clock.now();
    const outcome = await waitForTurns(world.deps, { name: "w1" });
    expect(outcome.reason).toBe("stop");
    expect(world.clock.now() - started).toBeGreaterThanOrEqual(400);
    expect(world.clock.now() - started).toBeLessThan(1000);
    expect(outcome.telemetry).toMatchObject({
      settled: true,
      costUsd: 0.02686,
      lastTurn: { input: 3291, output: 22 },
      windows: [
        { name: "five_hour", usedPercent: 93 },
        { name: "seven_day", usedPercent: 42 },
      ],
    });
    const status = (await statusOf(world.deps, "w1")).telemetry;
    expect({ ...status, settled: true } as unknown).toEqual(outcome.telemetry);
  });

  test("a statusline that never catches up: the bound (2 s), then what is there, marked not settled", async () => {
    const world = endedTurn(null);
    const started = world.clock.now();
    const outcome = await waitForTurns(world.deps, { name: "w1" });
    expect(world.clock.now() - started).toBeLessThanOrEqual(2100);
    expect(outcome.telemetry).toMatchObject({ settled: false, costUsd: 0.013256 });
  });

  test("a provider that records no telemetry (opencode) has none, and nothing to wait for", async () => {
    const world = createFakeWorld();
    addWorker(world, "oc", { provider: "opencode" });
    world.hook(
      "oc",
      { event: "ready", db: "/db", pid: 1 },
      { event: "prompt", session: "ses_1", message: "msg_1", root: true },
      { event: "idle", session: "ses_1" },
    );
    world.files.set("/db", "");
    const outcome = await waitForTurns(world.deps, { name: "oc" });
    expect(outcome.reason).toBe("stop");
    expect(outcome.telemetry).toBeNull();
  });
});
