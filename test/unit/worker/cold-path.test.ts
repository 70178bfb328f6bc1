import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getProvider } from "../../../src/core/providers/registry.ts";
import { runPrintTurn } from "../../../src/operations/print/turn.ts";
import { killWorker } from "../../../src/operations/worker/kill.ts";
import { sendPrompt } from "../../../src/operations/worker/send.ts";
import { BUSY, IDLE } from "../../fixtures/claude-screens.ts";
import { addWorker, createFakeWorld, type FakeWorld } from "../../helpers/fake-deps.ts";
import { runReady } from "../../helpers/machine-world.ts";

/**
 * The cold path of a turn, each cut measured (docs/performance.md): Enter 10 ms after the paste, the
 * -p drain ending at the answer instead of claude's bookkeeping lines, no tombstone screen for a
 * purge, one tmux call per readiness poll.
 */
const TRANSCRIPT = "/t/s.jsonl";
const CODEX_READY = readFileSync(join(import.meta.dir, "../../fixtures/codex/screens/ready.txt"), "utf8");
const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });
const line = (entry: object) =>
  `${JSON.stringify({ sessionId: "S", timestamp: "2026-12-01T00:00:00.000Z", ...entry })}\n`;

function readyClaude(): FakeWorld {
  const world = createFakeWorld();
  addWorker(world, "w1", { screen: IDLE });
  world.hook("w1", ev("SessionStart", { transcript_path: TRANSCRIPT }));
  world.files.set(TRANSCRIPT, "");
  return world;
}

/**
 * claude 2.1.332 as measured on the stub: the assistant line lands before Stop, its stop hooks run,
 * and only ~150-370 ms later come stop_hook_summary and turn_duration (here 2 s, to make it plain).
 */
function answeringTui(
  world: FakeWorld,
  blocks: readonly string[],
  { bookkeepingMs = 2000, hookMessage = true } = {},
): void {
  world.tmux.onKeys = (name, keys) => {
    const pane = world.tmux.panes.get(name);
    if (!pane || !keys.includes("Enter") || pane.screen !== IDLE) return;
    pane.screen = BUSY;
    const prompt = world.tmux.pasted.at(-1)?.text ?? "";
    world.files.set(
      TRANSCRIPT,
      `${world.files.get(TRANSCRIPT)}${line({ type: "user", promptId: "p1", origin: { kind: "human" }, message: { role: "user", content: prompt } })}`,
    );
    world.hook(name, ev("UserPromptSubmit", { prompt_id: "p1", prompt }));
    world.clock.at(world.clock.now() + 300, () => {
      const lines = blocks.map((text) =>
        line({
          type: "assistant",
          message: {
            id: "msg_1",
            role: "assistant",
            content: [{ type: "text", text }],
            stop_reason: "end_turn",
          },
        }),
      );
      world.files.set(TRANSCRIPT, `${world.files.get(TRANSCRIPT)}${lines.join("")}`);
      pane.screen = IDLE;
      world.hook(
        name,
        ev("Stop", { prompt_id: "p1", ...(hookMessage ? { last_assistant_message: blocks.at(-1) } : {}) }),
      );
      world.clock.at(world.clock.now() + bookkeepingMs, () => {
        world.files.set(
          TRANSCRIPT,
          `${world.files.get(TRANSCRIPT)}${line({ type: "system", subtype: "turn_duration", durationMs: 300 })}`,
        );
      });
    });
  };
}

describe("the cold path (in memory)", () => {
  test("Enter goes 10 ms after the paste (bracketed paste was never swallowed, even at 0 ms)", async () => {
    const world = readyClaude();
    answeringTui(world, ["hi"]);
    const started = world.clock.now();
    let enterAt: number | null = null;
    const keys = world.tmux.onKeys;
    world.tmux.onKeys = (name, k) => {
      if (k.includes("Enter")) enterAt ??= world.clock.now();
      keys(name, k);
    };
    expect(await sendPrompt(world.deps, { name: "w1", prompt: "hi" })).toMatchObject({ enters: 1 });
    expect(enterAt).not.toBeNull();
    expect((enterAt ?? 0) - started).toBeLessThanOrEqual(10);
    expect(getProvider("claude").delivery).toBeUndefined();
  });

  test("codex: Enter goes at once after the paste (0.171.0 took every first Enter after a bracketed paste at 0 ms)", async () => {
    const world = createFakeWorld();
    addWorker(world, "w1", { provider: "codex", screen: CODEX_READY });
    const pasted: number[] = [];
    const paste = world.tmux.paste.bind(world.tmux);
    world.tmux.paste = async (name, text, buffer) => {
      pasted.push(world.clock.now());
      return paste(name, text, buffer);
    };
    let enterAt = null as number | null;
    world.tmux.onKeys = (name, k) => {
      if (!k.includes("Enter")) return;
      enterAt ??= world.clock.now();
      world.hook(name, ev("UserPromptSubmit", { turn_id: "t1", prompt: "hi" }));
    };
    expect(await sendPrompt(world.deps, { name: "w1", prompt: "hi" })).toMatchObject({ enters: 1 });
    expect(pasted).toHaveLength(1);
    expect(enterAt).toBe(pasted[0] ?? -1);
  });

  test("the composer's clearing keys go with the paste, in one tmux call", async () => {
    const world = createFakeWorld();
    addWorker(world, "w1", { provider: "codex", screen: CODEX_READY });
    const seen: string[] = [];
    world.tmux.onKeys = (name, k) => {
      seen.push(k.join(" "));
      if (k.includes("Enter")) world.hook(name, ev("UserPromptSubmit", { turn_id: "t1", prompt: "hi" }));
    };
    world.tmux.onPaste = () => seen.push("paste");
    await sendPrompt(world.deps, { name: "w1", prompt: "hi" });
    expect(seen).toEqual(["C-e C-u BSpace", "paste", "Enter"]);
    expect(world.tmux.calls.filter((c) => c.startsWith("send-keys") || c.includes("paste"))).toEqual([
      "send-keys C-e C-u BSpace+paste-buffer",
      "send-keys Enter",
    ]);
  });

  test("-p: the turn is over once the answer is in the transcript, not after claude's bookkeeping lines", async () => {
    const world = readyClaude();
    answeringTui(world, ["Part one.", "Part two."]);
    const started = world.clock.now();
    const turn = await runPrintTurn(world.deps, { name: "w1", prompt: "two blocks" });
    expect(turn.outcome.reason).toBe("stop");
    expect(turn.text).toBe("Part one.\n\nPart two.");
    // Stop came 300 ms in; turn_duration 2 s later is not waited for (the virtual clock also runs
    // the follower's 1 s safety poll, so the bound is below the marker, not at the Stop).
    expect(turn.summaries.at(-1)?.complete).toBe(false);
    expect(world.clock.now() - started).toBeLessThan(2300);
    expect(turn.summaries.at(-1)?.assistantMessages).toBe(1);
  });

  test("-p: a Stop without the answer (claude's empty-answer case) still drains to the end marker", async () => {
    const world = readyClaude();
    answeringTui(world, ["only"], { bookkeepingMs: 800, hookMessage: false });
    const started = world.clock.now();
    const turn = await runPrintTurn(world.deps, { name: "w1", prompt: "x" });
    expect(turn.text).toBe("only");
    expect(turn.summaries.at(-1)?.complete).toBe(true);
    expect(world.clock.now() - started).toBeGreaterThanOrEqual(1100);
  });

  test("-p --max-turns 1: the halt hook is armed before the prompt goes in (a fast tool's PostToolUse can never beat it)", async () => {
    const world = readyClaude();
    answeringTui(world, ["done"]);
    const halt = join(world.deps.store.paths("w1").events, "halt-PostToolUse.json");
    let armedAtEnter = null as boolean | null;
    const keys = world.tmux.onKeys;
    world.tmux.onKeys = (name, k) => {
      if (k.includes("Enter")) armedAtEnter ??= world.files.has(halt);
      keys(name, k);
    };
    const turn = await runPrintTurn(world.deps, { name: "w1", prompt: "one turn", maxTurns: 1 });
    expect(armedAtEnter).toBe(true);
    // The turn ended by itself with its answer; the halt is removed after it.
    expect(turn.text).toBe("done");
    expect(world.files.has(halt)).toBe(false);
  });

  test("kill --purge takes no last screen: the tombstone it would go to is removed at once", async () => {
    const world = readyClaude();
    await killWorker(world.deps, { name: "w1", purge: true });
    expect(world.tmux.calls).not.toContain("capture-pane");
    expect(world.sessions.has("w1")).toBe(false);
  });

  test("readiness asks tmux for the pane once a second, not at every 100 ms poll", () => {
    const claude = getProvider("claude");
    const run = runReady(
      { provider: claude, name: "w1", deadline: 60_000, timeoutMs: 60_000, untrusted: null },
      {
        screens: [
          [0, ""],
          [2000, IDLE],
        ],
        events: [[2000, ev("SessionStart", { transcript_path: TRANSCRIPT })]],
      },
    );
    expect(run.result).toBe("ready");
    expect(run.commands.filter((c) => c === "probe").length).toBeLessThanOrEqual(3);
    expect(run.commands.filter((c) => c === "capture").length).toBeGreaterThanOrEqual(15);
  });
});

describe("readiness right after SessionStart", () => {
  test("the hook fires before the composer is drawn: once it has, the screen is looked at every 20 ms", () => {
    const claude = getProvider("claude");
    const run = runReady(
      { provider: claude, name: "w1", deadline: 60_000, timeoutMs: 60_000, untrusted: null },
      {
        screens: [
          [0, BUSY],
          [930, IDLE],
        ],
        events: [[905, { hook_event_name: "SessionStart", session_id: "S", transcript_path: TRANSCRIPT }]],
      },
    );
    expect(run.result).toBe("ready");
    // Not the next 100 ms poll (~1010): within ~20 ms of the composer.
    expect(run.at).toBeLessThan(970);
  });
});
