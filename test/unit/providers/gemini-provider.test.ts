import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../../../src/core/errors.ts";
import { assessRetryStall, interpretGeminiEvent } from "../../../src/core/providers/gemini/events.ts";
import { GEMINI_APPROVAL_MODES } from "../../../src/core/providers/gemini/non-interactive.ts";
import {
  GEMINI_LAUNCH_FLAGS,
  gemini,
  geminiLaunchProblems,
  geminiTurnEnd,
  planGeminiLaunch,
  prepareGeminiPrompt,
} from "../../../src/core/providers/gemini/provider.ts";
import { classifyGeminiScreen, stillGeminiScreen } from "../../../src/core/providers/gemini/screen.ts";
import { parseGeminiAnswer, replayGemini } from "../../../src/core/providers/gemini/transcript.ts";
import type { LaunchFlag } from "../../../src/core/providers/launch-types.ts";
import type { HookEvent } from "../../../src/core/providers/types.ts";
import { assessTurn, correctTurn } from "../../../src/core/wait/turn.ts";
import { parseEvents } from "../../../src/core/worker/events.ts";
import * as S from "./gemini-samples.ts";

const TRANSCRIPT = `${S.TRANSCRIPT_LINES.join("\n")}\n`;

/** A loop-detection box as the notes quote it (§2, §7); no capture of the real one yet. */
const LOOP = `
ℹ A potential loop was detected. This can happen due to repetitive tool calls or other model behavior. The request has been halted.
╭────────────────────────────────────────╮
│ ?  A potential loop was detected  │
│  │
│ ● 1. Keep loop detection enabled (esc)  │
│   2. Disable loop detection for this session  │
╰────────────────────────────────────────╯
`;

/** What a swallowed Enter leaves: the prompt still in the box (real capture, trimmed). */
const PROMPT_IN_BOX = `
────────────────────────────────────────
 Shift+Tab to accept edits
 > stub:error 500
 workspace (/directory)     sandbox     /model
`;

/** A model answer that happens to be a numbered list like the retry menu: not a dialog. */
const LIST_IN_ANSWER = S.READY.replace("✦ STUB-REPLY", "✦ Options:\n 1. Keep trying\n 2. Stop\n✦ STUB-REPLY");

describe("gemini screens (real 0.61.0 captures)", () => {
  test.each([
    ["idle", S.READY, { kind: "ready" }],
    ["idle in YOLO (`*` composer)", S.READY_YOLO, { kind: "ready" }],
    ["after Escape", S.AFTER_ESCAPE, { kind: "ready" }],
    ["after an API error", S.AFTER_API_ERROR, { kind: "ready" }],
    ["a prompt left in the box", PROMPT_IN_BOX, { kind: "ready" }],
    ["a numbered list in an answer", LIST_IN_ANSWER, { kind: "ready" }],
    ["hooks running", S.BUSY_HOOK, { kind: "busy" }],
    ["thinking", S.BUSY_THINKING, { kind: "busy" }],
    ["shell mode", S.SHELL_MODE, { kind: "dialog", dialog: "shell-mode", keys: ["Escape"] }],
    [
      "folder trust: the digit of 'Trust folder'",
      S.TRUST,
      // The box names the folder by its base name only (the cwd): spawn names it in full.
      { kind: "dialog", dialog: "trust", keys: ["1"], grantsTrust: true, answer: "Trust folder" },
    ],
    [
      "--add-dir's folders: Yes (this session)",
      S.INCLUDE_TRUST,
      {
        kind: "dialog",
        dialog: "include-trust",
        keys: ["1"],
        grantsTrust: true,
        answer: "Yes",
        folders: ["/tmp/umbel-gemini-74jlIh/extra-dir"],
      },
    ],
    [
      "loop detection",
      LOOP,
      { kind: "dialog", dialog: "loop-detection", keys: ["1"], answer: "Keep loop detection enabled" },
    ],
  ])("%s", (_name, screen, expected) => {
    expect(classifyGeminiScreen(screen)).toEqual(expected as ReturnType<typeof classifyGeminiScreen>);
  });

  test.each([
    ["the auth method dialog", S.AUTH_CHOICE],
    ["the API key box", S.API_KEY_BOX],
    ["the OAuth URL prompt", S.OAUTH_URL],
  ])("sign-in: %s", (_name, screen) => {
    expect(classifyGeminiScreen(screen).kind).toBe("sign-in");
  });

  test("a clashing --session-id is an exit, with gemini's message", () => {
    const state = classifyGeminiScreen(S.DUPLICATE_SESSION);
    expect(state.kind).toBe("exited");
    expect(state).toMatchObject({ text: expect.stringContaining("already exists. Use --resume") });
  });

  test("the tool permission box is input, with the command and the question", () => {
    const state = classifyGeminiScreen(S.PERMISSION);
    expect(state.kind).toBe("input");
    const text = state.kind === "input" ? state.text : "";
    expect(text.split("\n")).toEqual([
      "? Shell  touch approve-me.txt",
      "touch approve-me.txt",
      "Allow execution of [Shell]?",
      "● 1. Allow once",
      "2. Allow for this session",
      "3. No, suggest changes (esc)",
    ]);
  });

  test.each([
    ["a daily quota", S.QUOTA, "Usage limit reached for gemini-2.5-flash."],
    ["a model not found", S.MODEL_NOT_FOUND, 'Model "gemini-2.5-flash" was not found or is invalid.'],
  ])("'Keep trying / Stop' after %s is an error whose keys choose Stop", (_name, screen, first) => {
    const state = classifyGeminiScreen(screen);
    expect(state).toMatchObject({ kind: "error", keys: ["2"] });
    expect(state.kind === "error" ? state.text.split("\n")[0] : "").toBe(first);
  });

  test("the spinner's glyph and seconds are not activity", () => {
    const later = S.BUSY_THINKING.replace(
      "⠏ Thinking... (esc to cancel, 4s)",
      "⠋ Thinking... (esc to cancel, 9s)",
    );
    expect(later).not.toBe(S.BUSY_THINKING);
    expect(stillGeminiScreen(later)).toBe(stillGeminiScreen(S.BUSY_THINKING));
    expect(stillGeminiScreen(S.READY)).not.toBe(stillGeminiScreen(S.AFTER_ESCAPE));
  });
});

const BASE = {
  session_id: "035c224e-2821-43f4-b9e5-b19552a31f87",
  transcript_path: "/h/.gemini/tmp/w/chats/session-2026-11-29T22-31-035c224e.jsonl",
  cwd: "/tmp/gx/w",
};
const event = (index: number, payload: Record<string, unknown>): HookEvent => ({
  index,
  name: typeof payload.hook_event_name === "string" ? payload.hook_event_name : "unknown",
  payload,
});

describe("gemini hook payloads (real 0.61.0)", () => {
  test.each([
    [
      { ...BASE, hook_event_name: "SessionStart", timestamp: "2026-11-29T22:31:22.615Z", source: "startup" },
      { kind: "session-start", sessionId: BASE.session_id, transcriptPath: BASE.transcript_path },
    ],
    [
      {
        ...BASE,
        hook_event_name: "BeforeAgent",
        timestamp: "2026-11-29T22:31:25.962Z",
        prompt: "hello there? really! ok",
      },
      {
        kind: "submitted",
        promptId: "2026-11-29T22:31:25.962Z",
        prompt: "hello there? really! ok",
        human: true,
      },
    ],
    [
      // prompt_response is mangled (chunks joined with spaces, repeated): never the answer.
      {
        ...BASE,
        hook_event_name: "AfterAgent",
        timestamp: "2026-11-29T22:31:26.125Z",
        prompt: "hello there? really! ok",
        prompt_response:
          "STUB-REPLY len=23 sha=ecc2d04b2da7 head=hello there? really! ok =ecc2d04b2da7 head=he llo",
        stop_hook_active: false,
      },
      { kind: "stop", promptId: null, message: null, backgroundTasks: [] },
    ],
    [
      {
        ...BASE,
        hook_event_name: "Notification",
        notification_type: "ToolPermission",
        message: "Tool Confirm Shell Command requires execution",
        details: {
          type: "exec",
          title: "Confirm Shell Command",
          command: "touch approve-me.txt",
          rootCommand: "touch",
        },
      },
      { kind: "input", text: "Shell: touch approve-me.txt", detail: "permission" },
    ],
    [
      {
        ...BASE,
        hook_event_name: "Notification",
        notification_type: "ToolPermission",
        message: "Tool Confirm Write: notes.txt requires editing",
        details: {
          type: "edit",
          title: "Confirm Write: notes.txt",
          fileName: "notes.txt",
          filePath: "/w/notes.txt",
        },
      },
      { kind: "input", text: "Edit: notes.txt", detail: "permission" },
    ],
    [
      {
        ...BASE,
        hook_event_name: "BeforeTool",
        tool_name: "run_shell_command",
        tool_input: { command: "touch x" },
      },
      { kind: "progress" },
    ],
    [{ hook_event_name: "BeforeModel" }, { kind: "progress" }],
    [
      { ...BASE, hook_event_name: "SessionEnd", reason: "exit" },
      { kind: "session-end", reason: "exit" },
    ],
    [{ ...BASE, hook_event_name: "PreCompress", trigger: "auto" }, { kind: "ignore" }],
    [{ ...BASE, hook_event_name: "Notification", notification_type: "Other" }, { kind: "ignore" }],
  ])("%#: %o", (payload, expected) => {
    expect(interpretGeminiEvent(event(0, payload))).toEqual(
      expected as ReturnType<typeof interpretGeminiEvent>,
    );
  });
});

describe("gemini transcript replay (real 0.61.0 session)", () => {
  test.each([
    [
      "a plain turn",
      S.TURN_KEYS.firstPlain,
      "answered",
      "STUB-REPLY len=11 sha=42dea59809d1 head=first plain",
    ],
    [
      "an approved tool call (line rewritten with toolCalls)",
      S.TURN_KEYS.tool,
      "answered",
      "STUB-TOOL-RESULT is_error=false len=82 sha=b630b4cc6b2d head=<untrusted_context>\\nOutput: (empty)\\nProc",
    ],
    [
      "the last turn",
      S.TURN_KEYS.lastPlain,
      "answered",
      "STUB-REPLY len=10 sha=6736ad2e43bf head=last plain",
    ],
    ["no turn key: the last turn", null, "answered", "STUB-REPLY len=10 sha=6736ad2e43bf head=last plain"],
    ["Escape while busy: rolled back", S.TURN_KEYS.hang, "cancelled", null],
    [
      "a denied tool: rolled back although the history was re-appended",
      S.TURN_KEYS.denied,
      "cancelled",
      null,
    ],
  ])("%s", (_name, key, status, text) => {
    const answer = parseGeminiAnswer(TRANSCRIPT, key);
    expect(answer).toMatchObject({
      status,
      text,
      complete: true,
      sessionId: "5c874700-efdf-452c-9c6d-20fe9b1ae72e",
    });
  });

  test("an API error: rolled back, the error line is the evidence", () => {
    expect(parseGeminiAnswer(TRANSCRIPT, S.TURN_KEYS.error400)).toMatchObject({
      status: "failed",
      text: null,
      complete: true,
      prompt: "stub:error 400",
      error: '[API Error: {"error":{"code":400,"message":"stub error 400","status":"INVALID_ARGUMENT"}}]',
    });
  });

  test("mid-turn: the reply line without its tool calls yet is running, not an empty answer", () => {
    const upTo = S.TRANSCRIPT_LINES.findIndex((line) => line.includes('"content":""'));
    const partial = `${S.TRANSCRIPT_LINES.slice(0, upTo + 1).join("\n")}\n`;
    expect(parseGeminiAnswer(partial, S.TURN_KEYS.tool)).toMatchObject({
      status: "running",
      complete: false,
      text: null,
    });
    const justPrompt = `${S.TRANSCRIPT_LINES.slice(0, 3).join("\n")}\n{"id":"torn`;
    expect(parseGeminiAnswer(justPrompt, S.TURN_KEYS.firstPlain)).toMatchObject({
      status: "running",
      prompt: "first plain",
    });
  });

  test("a turn not written yet, and an empty file", () => {
    expect(parseGeminiAnswer(TRANSCRIPT, "2026-11-29T23:00:00.000Z").status).toBe("none");
    expect(parseGeminiAnswer("", null)).toMatchObject({ status: "none", text: null, sessionId: null });
  });

  test("replay: same id replaces in place, $set.messages resets, $rewindTo truncates, parts arrays", () => {
    const lines = [
      '{"sessionId":"s1","kind":"main"}',
      '{"id":"u1","timestamp":"t1","type":"user","content":[{"text":"q1"}]}',
      '{"id":"g1","timestamp":"t2","type":"gemini","content":""}',
      '{"id":"g1","timestamp":"t2","type":"gemini","content":[{"text":"thinking…","thought":true},{"text":"a1"}]}',
      '{"id":"u2","timestamp":"t3","type":"user","content":[{"text":"q2"}]}',
      '{"$rewindTo":"u2"}',
    ];
    const { messages } = replayGemini(lines.join("\n"));
    expect(messages.map((m) => [m.id, m.content])).toEqual([
      ["u1", [{ text: "q1" }]],
      ["g1", [{ text: "thinking…", thought: true }, { text: "a1" }]],
    ]);
    // u2 was rewound, so the last turn has no answer; the one before it still has its own.
    expect(parseGeminiAnswer(lines.join("\n"), null)).toMatchObject({
      status: "running",
      prompt: "q2",
      text: null,
    });
    expect(parseGeminiAnswer(lines.join("\n"), "t0")).toMatchObject({ status: "answered", text: "a1" });
  });

  test("an @file prompt is found by its displayContent", () => {
    const lines = [
      '{"id":"u1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"look at @a.txt"},{"text":"\\n--- Content from referenced files ---"}],"displayContent":[{"text":"look at @x"}]}',
      '{"id":"g1","timestamp":"2026-01-01T00:00:02.000Z","type":"gemini","content":"done"}',
    ];
    expect(parseGeminiAnswer(lines.join("\n"), "2026-01-01T00:00:00.900Z")).toMatchObject({
      prompt: "look at @x",
      text: "done",
      status: "answered",
    });
  });
});

describe("a turn an AfterTool hook halted (umbel -p --max-turns, real 0.61.0)", () => {
  // No AfterAgent follows the halt: the transcript's "Agent execution stopped: …" line is the only
  // record that the turn is over. Read as still running, a send right after -p --max-turns returned
  // found gemini's screen still on "Executing Hook: umbel-AfterTool (esc to cancel, …)" (0.2-0.9 s,
  // measured) and refused the warm worker as busy (exit 4, nothing on stdout) instead of settling.
  const HALTED = readFileSync(
    join(import.meta.dir, "..", "..", "fixtures", "gemini", "chat-halted.jsonl"),
    "utf8",
  );
  const KEY = "2026-11-30T00:33:43.350Z";
  const HOOKS = [
    `{"hook_event_name":"BeforeAgent","timestamp":"${KEY}","prompt":"go"}`,
    '{"hook_event_name":"BeforeModel"}',
    '{"hook_event_name":"BeforeTool","tool_name":"run_shell_command"}',
    '{"hook_event_name":"AfterTool","tool_name":"run_shell_command"}',
  ].join("\n");

  test("the stop line ends the turn: halted, complete, no answer", () => {
    expect(parseGeminiAnswer(HALTED, KEY)).toMatchObject({ status: "halted", complete: true, text: null });
    expect(geminiTurnEnd(HALTED, KEY)).toEqual({ kind: "interrupted", promptId: KEY, detail: "halted" });
  });

  test("every verb sees it over: the hooks' running turn, corrected by the transcript, is an interrupted stop", () => {
    const hooked = assessTurn(gemini, parseEvents(gemini, `${HOOKS}\n`), 0);
    expect(hooked.status).toBe("running");
    expect(correctTurn(gemini, hooked, HALTED)).toMatchObject({
      status: "stop",
      interrupted: true,
      detail: "halted",
    });
  });

  test("before the stop line lands it is still running", () => {
    const upTo = HALTED.indexOf('"Agent execution stopped');
    const before = HALTED.slice(0, HALTED.lastIndexOf("\n", upTo) + 1);
    expect(parseGeminiAnswer(before, KEY)).toMatchObject({ status: "running", complete: false });
    expect(geminiTurnEnd(before, KEY)).toBeNull();
  });
});

describe("gemini launch", () => {
  const base = {
    bin: "/bin/gemini",
    sessionId: "sid-1",
    hookCommand: "sh hook.sh log",
    isRoot: false,
  };
  const home = { path: "/u/sessions/w/gemini", worker: "w" };

  test("session id, model, home, trust and one process", () => {
    expect(planGeminiLaunch({ ...base, model: "gemini-2.5-flash" }, home)).toEqual({
      argv: ["/bin/gemini", "--session-id", "sid-1", "--model", "gemini-2.5-flash"],
      env: {
        GEMINI_CLI_HOME: "/u/sessions/w/gemini",
        GEMINI_CLI_TRUST_WORKSPACE: "true",
        GEMINI_CLI_NO_RELAUNCH: "true",
      },
    });
  });

  test.each([
    [{ unattended: true }, ["--approval-mode", "yolo"]],
    [{ permissionMode: "bypassPermissions" as const }, ["--approval-mode", "yolo"]],
    [{ permissionMode: "acceptEdits" as const }, ["--approval-mode", "auto_edit"]],
    [{ permissionMode: "plan" as const }, ["--approval-mode", "plan"]],
    [{ permissionMode: "manual" as const }, ["--approval-mode", "default"]],
    [{ resumeSessionId: "old" }, ["--resume", "old"]],
    [
      { allowedTools: ["run_shell_command(git)", "write_file"] },
      ["--allowed-tools", "run_shell_command(git)", "--allowed-tools", "write_file"],
    ],
  ])("%o → %o", (extra, args) => {
    const { argv } = planGeminiLaunch({ ...base, ...extra }, home);
    expect(argv.join(" ")).toContain(args.join(" "));
  });

  test.each([
    [{ addDirs: ["/a/b", "/c d"] }, ["--include-directories", "/a/b", "--include-directories", "/c d"], {}],
    [{ systemPrompt: "be terse" }, [], { GEMINI_SYSTEM_MD: "/u/sessions/w/gemini/system-prompt.md" }],
    // These live in the home (gemini-launch.test.ts): nothing on the argv, nothing in the env.
    [
      {
        appendSystemPrompt: "x",
        disallowedTools: ["run_shell_command"],
        mcpServers: { s: { command: "s" } },
      },
      [],
      {},
    ],
  ])("launch flags %o → argv %o, env %o", (extra, args, env) => {
    const plan = planGeminiLaunch({ ...base, ...extra }, home);
    expect(plan.argv.slice(3)).toEqual(args);
    expect(plan.env).toEqual({
      GEMINI_CLI_HOME: "/u/sessions/w/gemini",
      GEMINI_CLI_TRUST_WORKSPACE: "true",
      GEMINI_CLI_NO_RELAUNCH: "true",
      ...env,
    });
  });

  test.each(["/a,b", " /lead", "/trail "])(
    "--add-dir %j: gemini would split or trim it → usage error",
    (dir) => {
      expect(() => planGeminiLaunch({ ...base, addDirs: [dir] }, home)).toThrow(UsageError);
      expect(() => planGeminiLaunch({ ...base, addDirs: [dir] }, home)).toThrow(
        "gemini splits directories at commas",
      );
    },
  );

  test.each<[LaunchFlag[], string | null]>([
    [["--system-prompt", "--append-system-prompt", "--add-dir", "--mcp-config", "--disallowed-tools"], null],
    [["--settings"], "--settings is not supported with --provider gemini"],
    [
      ["--add-dir", "--continue", "--settings"],
      "--continue, --settings are not supported with --provider gemini",
    ],
  ])("launch flags %o → %p", (launchFlags, refused) => {
    expect(gemini.checkLaunchOptions?.({ launchFlags })).toBe(refused);
  });

  test.each([
    [{ s: { command: "umbel", args: ["mcp"] }, h: { type: "http", url: "http://h/mcp" } }, null],
    [
      { s: { type: "ws", url: "ws://h" } },
      '--mcp-config: server "s" has type "ws"; gemini takes stdio, http and sse',
    ],
  ])("--mcp-config servers %o are checked before anything is made → %p", (mcpServers, refused) => {
    expect(gemini.checkLaunchOptions?.({ launchFlags: ["--mcp-config"], mcpServers })).toBe(refused);
  });

  test("the honoured flags", () => {
    expect<readonly string[]>(GEMINI_LAUNCH_FLAGS).toEqual([
      "--system-prompt",
      "--append-system-prompt",
      "--add-dir",
      "--mcp-config",
      "--disallowed-tools",
      "--structured",
    ]);
  });

  test("without a umbel-owned home it cannot be launched (its hooks would never fire): a compile error", () => {
    // @ts-expect-error: a gemini launch needs the laid-out home.
    const withoutHome = () => gemini.planLaunch(base);
    expect(typeof withoutHome).toBe("function");
    expect(gemini.home).toBeDefined();
  });

  test.each(["auto", "dontAsk"] as const)("--permission-mode %s is a usage error naming gemini", (mode) => {
    expect(geminiLaunchProblems({ permissionMode: mode })).toEqual([
      `--permission-mode ${mode} is not supported by gemini (use one of ${Object.keys(GEMINI_APPROVAL_MODES).join(", ")})`,
    ]);
    expect(geminiLaunchProblems({ permissionMode: "plan" })).toEqual([]);
  });

  test("the contract's static data", () => {
    expect(gemini).toMatchObject({
      id: "gemini",
      binEnv: "UMBEL_GEMINI_BIN",
      defaultBin: "gemini",
      submitEvent: "BeforeAgent",
    });
    expect(gemini.envNames).toContain("GEMINI_API_KEY");
    expect(gemini.envNames).not.toContain("GEMINI_CLI_HOME");
    expect(gemini.envNames.some((name) => name.startsWith("ANTHROPIC_"))).toBe(false);
  });
});

describe("gemini prompt preparation", () => {
  test.each([
    ["plain text gets a trailing space (trimmed by gemini)", "hello", "hello "],
    ["? ! @ stay as they are (paste keeps them)", "is this right? yes! @file", "is this right? yes! @file "],
    ["a slash command gets a WORD JOINER", "/about", "\u2060/about "],
    ["leading blanks do not hide a command", "  /quit now", "\u2060  /quit now "],
    ["// and /* are not commands", "// comment", "// comment "],
    ["a trailing backslash", "ends with \\", "ends with \\ "],
    ["CRLF becomes LF, controls go", "a\r\nb\u0007c", "a\nbc "],
  ])("%s", (_name, prompt, pasted) => {
    expect(prepareGeminiPrompt(prompt)).toBe(pasted);
  });
});

describe("gemini retry stall (persistent 500/429, unreachable server)", () => {
  const turn = (names: string[]) => names.map((name, index) => event(index, { hook_event_name: name }));
  const retrying = turn(["BeforeAgent", "BeforeModel", "BeforeModel", "BeforeModel"]);

  test.each([
    ["retries past the deadline", retrying, true, 100_000, true],
    ["retries, not yet 90 s", retrying, true, 60_000, false],
    ["one slow model call is not a retry", turn(["BeforeAgent", "BeforeModel"]), true, 300_000, false],
    [
      "tool progress resets the count",
      turn(["BeforeAgent", "BeforeModel", "BeforeModel", "BeforeTool", "BeforeModel"]),
      true,
      100_000,
      false,
    ],
    ["not busy (a dialog or idle)", retrying, false, 100_000, false],
  ])("%s", (_name, events, busy, since, stalled) => {
    const result = assessRetryStall({ events, busy, lastProgressAt: 0, now: since });
    expect(result.stalled).toBe(stalled);
  });

  test("the evidence names the attempts and the time", () => {
    expect(assessRetryStall({ events: retrying, busy: true, lastProgressAt: 1_000, now: 121_000 })).toEqual({
      stalled: true,
      attempts: 3,
      sinceMs: 120_000,
      error:
        "gemini retried the model request 3 times over 120s without an answer (server error, rate limit or unreachable server)",
    });
  });
});
