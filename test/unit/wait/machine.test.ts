import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { getProvider } from "../../../src/core/providers/registry.ts";
import type { Provider, TurnSignal } from "../../../src/core/providers/types.ts";
import type { WaitConfig } from "../../../src/core/wait/types.ts";
import { BUSY, IDLE, PERMISSION, SUBMITTED } from "../../fixtures/claude-screens.ts";
import { runWait, type World } from "../../helpers/machine-world.ts";

const claude = getProvider("claude");
const ev = (name: string, extra: object = {}) => ({ hook_event_name: name, session_id: "S", ...extra });
const START = ev("SessionStart", { transcript_path: "/t.jsonl" });
const SUBMIT = ev("UserPromptSubmit", { prompt_id: "p1", prompt: "hi" });
/** Events before the turn: the baseline is 1 (SessionStart is line 0). */
const turn = (...later: (readonly [number, object])[]): (readonly [number, object])[] => [
  [0, START],
  [0, SUBMIT],
  ...later,
];

const config = (over: Partial<WaitConfig> = {}): WaitConfig => ({
  provider: claude,
  baseline: 1,
  startedAt: 0,
  deadline: 60_000,
  idleTimeoutMs: null,
  killed: false,
  ...over,
});

/** A provider whose transcript says how the turn ended ("FAILED" / "CANCELLED"), as codex and gemini do. */
const withTranscript: Provider = {
  ...claude,
  transcriptTurnEnd: (text): TurnSignal | null =>
    text.includes("FAILED")
      ? { kind: "failure", promptId: null, error: "server_error", message: "boom" }
      : text.includes("CANCELLED")
        ? { kind: "interrupted", promptId: null, detail: "cancelled" }
        : text.includes("DONE")
          ? { kind: "stop", promptId: null, message: "from the transcript", backgroundTasks: [] }
          : null,
};

/** A provider that retries for ever (gemini's BeforeModel markers) and whose error box has keys. */
const retrying: Provider = {
  ...claude,
  markerEvents: ["BeforeModel"],
  interruptKeys: ["Escape"],
  assessStall: ({ events, lastProgressAt, now, busy }) => {
    const attempts = events.filter((e) => e.name === "BeforeModel").length;
    return busy && attempts >= 2 && now - lastProgressAt >= 10_000
      ? { stalled: true, attempts, sinceMs: now - lastProgressAt, error: "retrying" }
      : { stalled: false, attempts };
  },
};

describe("wait machine: every outcome", () => {
  test.each<
    [string, Partial<WaitConfig>, World, { reason: string; at: [number, number]; evidence?: object }]
  >([
    [
      "stop: the end-of-turn hook, at once, with its message",
      {},
      {
        events: turn([500, ev("Stop", { prompt_id: "p1", last_assistant_message: "hello" })]),
        screens: [[0, BUSY]],
      },
      { reason: "stop", at: [500, 510], evidence: { promptId: "p1", message: "hello" } },
    ],
    [
      // claude under load drew its composer, not its spinner, for 2 s after a submit; a hook then
      // says the turn goes on, and the idle composer counts again from it (a print-parity run ended
      // "without an end-of-turn hook" at its first tool, then met a busy worker: exit 4).
      "stop: a hook after 2 s of an idle-looking composer restarts the count (no hookless stop)",
      {},
      {
        events: turn(
          [2100, ev("PreToolUse", { tool_name: "Bash", tool_input: { command: "true" } })],
          [2150, ev("PostToolUse", { tool_name: "Bash", tool_input: { command: "true" } })],
          [3500, ev("Stop", { prompt_id: "p1", last_assistant_message: "done" })],
        ),
        screens: [[0, IDLE]],
      },
      { reason: "stop", at: [3500, 3520], evidence: { promptId: "p1", message: "done" } },
    ],
    [
      "provider-error: StopFailure, with the screen once it is no longer busy",
      {},
      {
        events: turn([
          300,
          ev("StopFailure", { error: "server_error", last_assistant_message: "API Error: 500" }),
        ]),
        screens: [
          [0, BUSY],
          [450, IDLE],
        ],
      },
      {
        reason: "provider-error",
        at: [450, 520],
        evidence: { error: "server_error", message: "API Error: 500" },
      },
    ],
    [
      "input: a permission request, reported once the prompt is drawn (the hook comes ~50 ms first)",
      {},
      {
        events: turn([200, ev("PermissionRequest", { tool_name: "Bash", tool_input: { command: "rm x" } })]),
        screens: [
          [0, BUSY],
          [260, PERMISSION],
        ],
      },
      { reason: "input", at: [260, 330], evidence: { prompt: "Bash: rm x", detail: "permission" } },
    ],
    [
      "dead: the wrapper's exit record, with the status and the last screen",
      {},
      { events: turn(), exit: [700, { exitCode: 3 }], screens: [[0, BUSY]] },
      { reason: "dead", at: [700, 720], evidence: { exit: { exitCode: 3 } } },
    ],
    [
      "dead: a dead pane with no exit record (seen at the next probe)",
      {},
      { events: turn(), pane: [[1500, "dead"]], screens: [[0, BUSY]] },
      { reason: "dead", at: [1500, 2100], evidence: { exit: null } },
    ],
    [
      "dead: the session is gone (killed from outside)",
      {},
      { events: turn(), pane: [[2500, "gone"]], screens: [[0, BUSY]] },
      { reason: "dead", at: [2500, 3100] },
    ],
    [
      "dead: a worker meta.json says was killed, at once",
      { killed: true },
      { events: turn(), screens: [[0, BUSY]] },
      { reason: "dead", at: [0, 20] },
    ],
    [
      "timeout: at the deadline",
      { deadline: 5000 },
      { events: turn(), screens: [[0, BUSY]] },
      { reason: "timeout", at: [5000, 5010], evidence: { timeoutMs: 5000 } },
    ],
    [
      "idle: screen, events and transcript still for --idle-timeout",
      { idleTimeoutMs: 3000 },
      { events: turn(), screens: [[0, BUSY]] },
      { reason: "idle", at: [3000, 4100] },
    ],
    [
      "aborted: the signal ends the wait without touching the worker",
      {},
      { events: turn(), screens: [[0, BUSY]], abortAt: 1234 },
      { reason: "aborted", at: [1234, 1240], evidence: {} },
    ],
  ])("%s", (_name, over, world, want) => {
    const run = runWait(config(over), world);
    expect(run.reason).toBe(want.reason);
    expect(run.at).toBeGreaterThanOrEqual(want.at[0]);
    expect(run.at).toBeLessThanOrEqual(want.at[1]);
    if (want.evidence) expect(run.evidence).toMatchObject(want.evidence);
  });

  test("every outcome but a clean stop carries the screen", () => {
    const run = runWait(config(), { events: turn(), exit: [100, { exitCode: 1 }], screens: [[0, "boom\n"]] });
    expect(run.evidence.screen).toBe("boom");
    const stop = runWait(config(), { events: turn([100, ev("Stop", { last_assistant_message: "x" })]) });
    expect(stop.evidence).not.toHaveProperty("screen");
  });
});

describe("wait machine: the races the e2e suite covers", () => {
  test("a permission answered with keys: the next wait sees the screen moved on (busy) and goes on to the Stop", () => {
    const run = runWait(config({ startedAt: 1000 }), {
      events: turn(
        [200, ev("PermissionRequest", { tool_name: "Bash", tool_input: { command: "ls" } })],
        [5000, ev("Stop", { last_assistant_message: "done" })],
      ),
      screens: [
        [0, BUSY],
        [100, PERMISSION],
        [220, BUSY],
      ],
    });
    expect(run.reason).toBe("stop");
    expect(run.at).toBeGreaterThanOrEqual(5000);
  });

  test("a turn that ends with no hook (Escape): the idle composer for 2 s → stop, interrupted", () => {
    const run = runWait(config(), {
      events: turn(),
      screens: [
        [0, BUSY],
        [3000, IDLE],
      ],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
    expect(run.at).toBeGreaterThanOrEqual(5000);
    expect(run.at).toBeLessThanOrEqual(6100);
  });

  test("a TUI that has not drawn the turn yet (the prompt still in its box) never ends it: the Stop does", () => {
    expect(claude.classifyScreen(SUBMITTED).kind).toBe("ready");
    const run = runWait(config(), {
      events: turn([6000, ev("Stop", { last_assistant_message: "done" })]),
      screens: [
        [0, SUBMITTED],
        [4000, BUSY],
        [5800, IDLE],
      ],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { message: "done" } });
    expect(run.evidence).not.toHaveProperty("interrupted");
    expect(run.at).toBeGreaterThanOrEqual(6000);
  });

  test("an idle composer this wait never saw busy: stop, interrupted, only after 10 s of it", () => {
    const run = runWait(config(), { events: turn(), screens: [[0, IDLE]] });
    expect(run).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
    expect(run.at).toBeGreaterThanOrEqual(10_000);
    expect(run.at).toBeLessThanOrEqual(11_100);
  });

  test("a turn with hooks past its submit was drawn: a later wait ends it 2 s into the idle composer", () => {
    // umbel's own interrupt after the fifth invalid StructuredOutput call, followed by a new wait.
    const run = runWait(config({ startedAt: 3000 }), {
      events: turn([1000, ev("PreToolUse", { tool_name: "StructuredOutput" })]),
      screens: [
        [0, BUSY],
        [2500, IDLE],
      ],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
    expect(run.at).toBeLessThanOrEqual(5100);
  });

  test("a hook while the composer looks idle starts its clock again", () => {
    const run = runWait(config(), {
      events: turn([2500, ev("PreToolUse", { tool_name: "Bash" })]),
      screens: [
        [0, BUSY],
        [1000, IDLE],
      ],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
    expect(run.at).toBeGreaterThanOrEqual(4500);
  });

  test("a CLI that streams with no busy marker (codex): its composer proves nothing", () => {
    const codexLike = { ...claude, screenShowsStreaming: false };
    const run = runWait(config({ provider: codexLike, deadline: 10_000 }), {
      events: turn(),
      screens: [[0, IDLE]],
    });
    expect(run.reason).toBe("timeout");
  });

  test("a prompt denied with keys: the next wait sees the idle composer for 2 s → stop, interrupted", () => {
    const run = runWait(config({ startedAt: 2500 }), {
      events: turn([200, ev("PermissionRequest", { tool_name: "Bash", tool_input: { command: "ls" } })]),
      screens: [
        [0, BUSY],
        [210, PERMISSION],
        [2000, IDLE],
      ],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { interrupted: true } });
  });

  test("the hook says stop, the transcript says failed 400 ms later: provider-error", () => {
    const run = runWait(config({ provider: withTranscript }), {
      events: turn([500, ev("Stop", { last_assistant_message: null })]),
      transcript: [
        [0, "…"],
        [900, "… FAILED"],
      ],
      screens: [[0, IDLE]],
    });
    expect(run).toMatchObject({
      reason: "provider-error",
      evidence: { error: "server_error", message: "boom" },
    });
    expect(run.at).toBeGreaterThanOrEqual(900);
    expect(run.at).toBeLessThan(1100);
  });

  test("the hook says stop, the transcript's end lands 15 ms later (codex): the wait ends about 10 ms after it, not 100", () => {
    const run = runWait(config({ provider: withTranscript }), {
      events: turn([500, ev("Stop", { last_assistant_message: "hi" })]),
      transcript: [
        [0, "…"],
        [515, "… DONE"],
      ],
      screens: [[0, IDLE]],
    });
    expect(run).toMatchObject({ reason: "stop" });
    expect(run.at).toBeGreaterThanOrEqual(515);
    expect(run.at).toBeLessThan(540);
  });

  test("the hook says stop and the transcript never speaks: stop after the 3 s hold", () => {
    const run = runWait(config({ provider: withTranscript }), {
      events: turn([500, ev("Stop", { last_assistant_message: "hi" })]),
      transcript: [[0, "…"]],
      screens: [[0, IDLE]],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { message: "hi" } });
    expect(run.at).toBeGreaterThanOrEqual(3500);
    expect(run.at).toBeLessThan(3700);
  });

  test("a turn that fails with no hook at all (codex): the transcript ends it", () => {
    const run = runWait(config({ provider: withTranscript }), {
      events: turn(),
      transcript: [
        [0, "…"],
        [1200, "… FAILED"],
      ],
      screens: [
        [0, BUSY],
        [1200, IDLE],
      ],
    });
    expect(run.reason).toBe("provider-error");
    expect(run.at).toBeLessThan(2300);
  });

  test("a cancelled turn (gemini 'Request cancelled.') is a stop, interrupted", () => {
    const run = runWait(config({ provider: withTranscript }), {
      events: turn([300, ev("Stop", {})]),
      transcript: [[0, "… CANCELLED"]],
      screens: [[0, IDLE]],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { interrupted: true, detail: "cancelled" } });
  });

  test("a background subagent keeps the turn open until it reports and a later Stop comes", () => {
    const run = runWait(config(), {
      events: turn(
        [100, ev("SubagentStart", { agent_id: "a1" })],
        [200, ev("Stop", { last_assistant_message: "started a task" })],
        [3000, ev("SubagentStop", { agent_id: "a1" })],
        [3100, ev("UserPromptSubmit", { prompt: "<task-notification>a1 done</task-notification>" })],
        [3500, ev("Stop", { last_assistant_message: "all done" })],
      ),
      screens: [[0, BUSY]],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { message: "all done" } });
    expect(run.at).toBeGreaterThanOrEqual(3500);
  });

  test("a retry stall: screen kept, the interrupt keys pressed, provider-error with the attempts", () => {
    const run = runWait(config({ provider: retrying }), {
      events: turn([100, ev("BeforeModel")], [2000, ev("BeforeModel")], [13_000, ev("Stop", {})]),
      screens: [[0, BUSY]],
    });
    expect(run.keys).toEqual([["Escape"]]);
    expect(run.reason).toBe("provider-error");
    expect(run.evidence).toMatchObject({
      error: "retrying",
      detail: "retry stall: 2 model attempts, no answer",
    });
    expect(run.evidence.screen).toContain("Puttering");
  });

  test("an error box with its own keys (gemini 'Keep trying / Stop') is answered once", () => {
    const box: Provider = {
      ...claude,
      classifyScreen: (screen) =>
        screen.includes("Keep trying")
          ? { kind: "error", text: "quota", keys: ["2", "Enter"] }
          : claude.classifyScreen(screen),
    };
    const run = runWait(config({ provider: box }), {
      events: turn([6000, ev("StopFailure", { error: "quota", last_assistant_message: "quota" })]),
      screens: [
        [0, BUSY],
        [1500, "Keep trying\nStop"],
        [6100, IDLE],
      ],
    });
    expect(run.keys).toEqual([["2", "Enter"]]);
    expect(run.reason).toBe("provider-error");
  });

  test("the screen is captured at most once per wake", () => {
    const run = runWait(config({ idleTimeoutMs: 60_000, deadline: 10_000 }), {
      events: turn([200, ev("PermissionRequest", { tool_name: "Bash", tool_input: {} })]),
      screens: [[0, PERMISSION]],
    });
    expect(run.reason).toBe("input");
    const wakes = run.trace.filter((t) => t.command === "read").length;
    const captures = run.trace.filter((t) => t.command === "capture").length;
    expect(captures).toBeLessThanOrEqual(wakes + 1);
  });
});

describe("wait machine: a hung tmux never stretches the deadline", () => {
  test.each([
    ["hung from the start", 0],
    ["hung mid-turn", 2500],
  ])("%s: timeout within 100 ms of the deadline", (_name, from) => {
    const run = runWait(config({ deadline: 5000 }), {
      events: turn(),
      screens: [[0, BUSY]],
      tmuxHangsFrom: from,
    });
    expect(run.reason).toBe("timeout");
    expect(run.at).toBeGreaterThanOrEqual(5000);
    expect(run.at).toBeLessThanOrEqual(5110);
  });

  test("a hung tmux is never read as dead", () => {
    const run = runWait(config({ deadline: 3000 }), { events: turn(), tmuxHangsFrom: 0 });
    expect(run.reason).toBe("timeout");
  });

  test("the evidence capture of a timeout outlasts the deadline by at most 100 ms", () => {
    const run = runWait(config({ deadline: 4000 }), {
      events: turn(),
      screens: [[0, BUSY]],
      tmuxHangsFrom: 3999,
    });
    expect(run.reason).toBe("timeout");
    expect(run.at).toBeLessThanOrEqual(4110);
  });

  test("a Stop that lands while tmux hangs still ends the wait as stop (within the 2 s tmux bound)", () => {
    const run = runWait(config(), {
      events: turn([1000, ev("Stop", { last_assistant_message: "done" })]),
      screens: [[0, BUSY]],
      tmuxHangsFrom: 0,
    });
    expect(run.reason).toBe("stop");
    expect(run.at).toBeLessThanOrEqual(3100);
  });
});

describe("wait machine: opencode's turns end by its plugin's events, never by the screen", () => {
  const opencode = getProvider("opencode");
  const screen = (name: string) =>
    readFileSync(join(import.meta.dir, "..", "..", "fixtures", "opencode", "screens", `${name}.txt`), "utf8");
  const oc = (event: string, extra: object = {}) => ({ event, session: "ses_1", ...extra });
  const READY = { event: "ready", db: "/x/opencode.db", pid: 7 };
  const PROMPT = oc("prompt", { message: "msg_1", root: true, text: "hi" });
  const record = (text: string) =>
    [
      {
        id: "msg_1",
        session: "ses_1",
        role: "user",
        created: 1,
        info: {},
        parts: [{ type: "text", text: "hi" }],
      },
      {
        id: "msg_2",
        session: "ses_1",
        role: "assistant",
        created: 2,
        info: { parentID: "msg_1", finish: "stop", time: { completed: 3 } },
        parts: [{ type: "text", text }],
      },
    ]
      .map((line) => JSON.stringify(line))
      .join("\n");

  test("a pane that lags the events (the last turn's idle footer, measured under load) never ends the turn", () => {
    // opencode 1.18.33's TUI draws the turn after the plugin's `prompt` and `busy`: on 2 loaded cores
    // the pane showed the previous turn's idle screen for seconds (test/fixtures/opencode/screens/lagging.txt).
    expect(opencode.classifyScreen(screen("lagging")).kind).toBe("ready");
    const run = runWait(config({ provider: opencode }), {
      events: [
        [0, READY],
        [0, PROMPT],
        [100, oc("busy")],
        [8000, oc("idle")],
      ],
      screens: [[0, screen("lagging")]],
      transcript: [[8000, record("the answer")]],
    });
    expect(run).toMatchObject({ reason: "stop", evidence: { message: "the answer" } });
    expect(run.evidence).not.toHaveProperty("interrupted");
    expect(run.at).toBeGreaterThanOrEqual(8000);
  });
});
