import { describe, expect, test } from "bun:test";
import { claude } from "../../../src/core/providers/claude/provider.ts";
import { decideOutcome, type WaitSnapshot } from "../../../src/core/wait/outcome.ts";
import { assessTurn, findTranscriptPath, lastSubmitIndex } from "../../../src/core/wait/turn.ts";
import { countEvents, parseEvents } from "../../../src/core/worker/events.ts";

const ev = (name: string, extra: object = {}) =>
  `${JSON.stringify({ hook_event_name: name, session_id: "S", ...extra })}\n`;
const log = (...lines: string[]) => lines.join("");
const turn = (text: string, baseline = 0) => assessTurn(claude, parseEvents(claude, text), baseline);

describe("events log", () => {
  test("only newline-terminated lines count; bad lines are kept as invalid", () => {
    const text = `${ev("SessionStart")}not json\n{"hook_event_name":"Stop"`;
    expect(countEvents(text)).toBe(2);
    expect(parseEvents(claude, text).map((e) => e.name)).toEqual(["SessionStart", "invalid"]);
    expect(parseEvents(claude, text, 1).map((e) => e.index)).toEqual([1]);
  });
});

describe("turn assessment", () => {
  const start = ev("SessionStart", { transcript_path: "/t.jsonl" });
  const submit = ev("UserPromptSubmit", { prompt_id: "p1", prompt: "hi" });
  test("submit → running → stop", () => {
    expect(turn(log(start), 1)).toEqual({ status: "none" });
    expect(turn(log(start, submit), 1).status).toBe("running");
    expect(
      turn(log(start, submit, ev("Stop", { prompt_id: "p1", last_assistant_message: "hello" })), 1),
    ).toEqual({
      status: "stop",
      promptId: "p1",
      message: "hello",
      at: 2,
    });
  });
  test("StopFailure is a failure with the error", () => {
    const t = turn(
      log(
        start,
        submit,
        ev("StopFailure", { error: "server_error", last_assistant_message: "API Error: 500" }),
      ),
      1,
    );
    expect(t).toMatchObject({ status: "failure", error: "server_error", message: "API Error: 500" });
  });
  test("a permission request is input until the tool runs", () => {
    const asked = log(
      start,
      submit,
      ev("PreToolUse"),
      ev("PermissionRequest", { tool_name: "Bash", tool_input: { command: "rm x" } }),
    );
    expect(turn(asked, 1)).toMatchObject({ status: "input", text: "Bash: rm x" });
    expect(
      turn(
        log(
          asked,
          ev("Notification", {
            notification_type: "permission_prompt",
            message: "Claude needs your permission",
          }),
        ),
        1,
      ).status,
    ).toBe("input");
    expect(turn(log(asked, ev("PostToolUse")), 1).status).toBe("running");
    expect(turn(log(asked, ev("PostToolUse"), ev("Stop")), 1).status).toBe("stop");
  });
  test("the permission_prompt Notification (~1 s after the PermissionRequest) is that same prompt: its text and place stay, so its inputId does", () => {
    const asked = log(
      start,
      submit,
      ev("PreToolUse"),
      ev("PermissionRequest", { tool_name: "Bash", tool_input: { command: "rm x" } }),
    );
    const notified = log(
      asked,
      ev("Notification", { notification_type: "permission_prompt", message: "Claude needs your permission" }),
    );
    expect(turn(notified, 1)).toEqual(turn(asked, 1));
    // With no PermissionRequest before it (a prompt no hook announced), it is the input itself.
    expect(
      turn(
        log(
          start,
          submit,
          ev("Notification", {
            notification_type: "permission_prompt",
            message: "Claude needs your permission",
          }),
        ),
        1,
      ),
    ).toMatchObject({ status: "input", text: "Claude needs your permission", detail: "permission_prompt" });
  });
  test("an idle notification is not input", () => {
    expect(
      turn(log(start, submit, ev("Stop"), ev("Notification", { notification_type: "idle_prompt" })), 1)
        .status,
    ).toBe("stop");
  });
  test("a background subagent holds the turn open until it reports and a later Stop comes", () => {
    const first = log(
      start,
      submit,
      ev("SubagentStart", { agent_id: "a1" }),
      ev("Stop", { background_tasks: [{ id: "a1", status: "running" }], last_assistant_message: "started" }),
    );
    expect(turn(first, 1)).toMatchObject({ status: "running", outstanding: ["a1"] });
    const report = log(
      first,
      ev("UserPromptSubmit", { prompt: '<agent-message from="a1">done</agent-message>' }),
      ev("SubagentStop", { agent_id: "a1" }),
    );
    expect(turn(report, 1).status).toBe("running");
    // The final Stop may still list the finished agent as running (claude 2.1.332).
    const done = log(
      report,
      ev("Stop", { background_tasks: [{ id: "a1", status: "running" }], last_assistant_message: "final" }),
    );
    expect(turn(done, 1)).toMatchObject({ status: "stop", promptId: "p1", message: "final" });
  });
  test("a subagent that stops before its report turn has started still holds the turn open", () => {
    // Seen on the real claude 2.1.332: Stop[a1 running], SubagentStop, then the report turn.
    const stopped = log(
      start,
      submit,
      ev("SubagentStart", { agent_id: "a1" }),
      ev("Stop", { background_tasks: [{ id: "a1", status: "running" }], last_assistant_message: "started" }),
      ev("SubagentStop", { agent_id: "a1" }),
    );
    expect(turn(stopped, 1).status).toBe("running");
    const done = log(
      stopped,
      ev("UserPromptSubmit", { prompt: '<agent-message from="a1">done</agent-message>' }),
      ev("Stop", { background_tasks: [], last_assistant_message: "final" }),
    );
    expect(turn(done, 1)).toMatchObject({ status: "stop", message: "final" });
  });
  test("SubagentStop logged before the Stop that lists the agent as running: wait for the report turn", () => {
    // Hooks run in parallel; on the real claude 2.1.332 this order was logged in 2 runs out of 6.
    const early = log(
      start,
      submit,
      ev("SubagentStart", { agent_id: "a1" }),
      ev("SubagentStop", { agent_id: "a1" }),
      ev("Stop", { background_tasks: [{ id: "a1", status: "running" }], last_assistant_message: "started" }),
    );
    expect(turn(early, 1).status).toBe("running");
    const done = log(
      early,
      ev("UserPromptSubmit", { prompt: '<agent-message from="a1">done</agent-message>' }),
      ev("Stop", { background_tasks: [{ id: "a1", status: "running" }], last_assistant_message: "final" }),
    );
    expect(turn(done, 1)).toMatchObject({ status: "stop", message: "final" });
  });
  test("the default baseline is the last human submit; subagent reports are not one", () => {
    const events = parseEvents(
      claude,
      log(start, submit, ev("Stop"), ev("UserPromptSubmit", { prompt: "<agent-message>x" })),
    );
    expect(lastSubmitIndex(claude, events)).toBe(1);
    expect(findTranscriptPath(claude, events)).toBe("/t.jsonl");
  });
});

describe("wait outcome", () => {
  const base: WaitSnapshot = {
    turn: { status: "running", promptId: "p", submittedAt: 1, outstanding: [] },
    exit: null,
    paneDead: false,
    sessionGone: false,
    now: 1000,
    startedAt: 0,
    deadline: 60_000,
    lastActivityAt: 0,
    idleTimeoutMs: null,
  };
  test.each([
    [{}, null],
    [{ turn: { status: "stop", promptId: "p", message: "m", at: 2 } }, "stop"],
    [
      { turn: { status: "failure", promptId: "p", error: "rate_limit", message: null, at: 2 } },
      "provider-error",
    ],
    [{ turn: { status: "input", promptId: "p", text: "Bash: x", detail: "permission", at: 2 } }, "input"],
    [{ exit: { exitCode: 3 } }, "dead"],
    [{ paneDead: true }, "dead"],
    [{ sessionGone: true }, "dead"],
    [{ now: 60_000 }, "timeout"],
    [{ idleTimeoutMs: 500 }, "idle"],
    [{ idleTimeoutMs: 5000 }, null],
    // A turn that ended is reported as ended even if the worker died after it.
    [{ turn: { status: "stop", promptId: "p", message: "m", at: 2 }, exit: { exitCode: 0 } }, "stop"],
    // Death beats a pending prompt; the deadline beats stillness.
    [
      { turn: { status: "input", promptId: "p", text: "x", detail: "d", at: 2 }, exit: { signal: "KILL" } },
      "dead",
    ],
    [{ now: 60_000, idleTimeoutMs: 1 }, "timeout"],
    // A prompt already answered (the CLI is busy running the allowed tool) is not input any more.
    [{ turn: { status: "input", promptId: "p", text: "x", detail: "d", at: 2 }, inputAnswered: true }, null],
    [
      {
        turn: { status: "input", promptId: "p", text: "x", detail: "d", at: 2 },
        inputAnswered: true,
        now: 60_000,
      },
      "timeout",
    ],
  ] as const)("%j → %p", (patch, reason) => {
    const decided = decideOutcome({ ...base, ...(patch as Partial<WaitSnapshot>) });
    expect(decided?.reason ?? null).toBe(reason);
  });
  test("evidence carries the error and the prompt", () => {
    expect(
      decideOutcome({
        ...base,
        turn: { status: "failure", promptId: "p", error: "server_error", message: "API Error: 500", at: 3 },
      })?.evidence,
    ).toEqual({ promptId: "p", error: "server_error", message: "API Error: 500" });
    expect(decideOutcome({ ...base, now: 60_000 })?.evidence).toEqual({ timeoutMs: 60_000 });
  });
});

describe("turn boundaries", () => {
  test("a later human prompt ends the turn read after an earlier baseline", () => {
    const text = log(
      ev("UserPromptSubmit", { prompt_id: "p1", prompt: "one" }),
      ev("Stop", { last_assistant_message: "first" }),
      ev("UserPromptSubmit", { prompt_id: "p2", prompt: "two" }),
      ev("Stop", { last_assistant_message: "second" }),
    );
    expect(turn(text, 0)).toMatchObject({ status: "stop", promptId: "p1", message: "first" });
    expect(turn(text, 2)).toMatchObject({ status: "stop", promptId: "p2", message: "second" });
  });
});

describe("a turn that ends without a hook", () => {
  const base: WaitSnapshot = {
    turn: { status: "running", promptId: "p", submittedAt: 1, outstanding: [] },
    exit: null,
    paneDead: false,
    sessionGone: false,
    now: 1000,
    startedAt: 0,
    deadline: 60_000,
    lastActivityAt: 0,
    idleTimeoutMs: null,
  };
  test.each([
    [{ readyForMs: 2500 }, "stop"],
    [{ readyForMs: 500 }, null],
    [{ readyForMs: null }, null],
    // A Stop came and a subagent's report is due: the idle composer is expected, keep waiting.
    [
      {
        readyForMs: 5000,
        turn: { status: "running", promptId: "p", submittedAt: 1, outstanding: [], sawStop: true },
      },
      null,
    ],
    // A permission prompt denied with Escape: the screen moved past it to the composer.
    [
      {
        readyForMs: 3000,
        inputAnswered: true,
        turn: { status: "input", promptId: "p", text: "x", detail: "d", at: 2 },
      },
      "stop",
    ],
    [{ readyForMs: 3000, turn: { status: "input", promptId: "p", text: "x", detail: "d", at: 2 } }, "input"],
  ] as const)("%j → %p", (patch, reason) => {
    const decided = decideOutcome({ ...base, ...(patch as Partial<WaitSnapshot>) });
    expect(decided?.reason ?? null).toBe(reason);
    if (reason === "stop") expect(decided?.evidence.interrupted).toBe(true);
  });
});
