// The pure glue between the codex/gemini providers and the engine: transcript-corrected turns,
// gemini's transcript verdicts, and the per-provider launch usage errors.
import { describe, expect, test } from "bun:test";
import { codex } from "../../../src/core/providers/codex/provider.ts";
import { gemini, geminiTurnEnd } from "../../../src/core/providers/gemini/provider.ts";
import { getProvider } from "../../../src/core/providers/registry.ts";
import type { TurnSignal } from "../../../src/core/providers/types.ts";
import { applyTranscriptEnd, type TurnState } from "../../../src/core/wait/turn.ts";

const running: TurnState = { status: "running", promptId: "t1", submittedAt: 0, outstanding: [] };
const stopped: TurnState = { status: "stop", promptId: "t1", message: null, at: 3 };
const failure: TurnSignal = { kind: "failure", promptId: "t1", error: "http", message: "401" };
const cancelled: TurnSignal = { kind: "interrupted", promptId: "t1", detail: "cancelled" };
const answered: TurnSignal = { kind: "stop", promptId: "t1", message: "hi", backgroundTasks: [] };

describe("applyTranscriptEnd", () => {
  test.each([
    ["running + failure → failure", running, failure, { status: "failure", error: "http", message: "401" }],
    [
      "running + interrupted → stop interrupted",
      running,
      cancelled,
      { status: "stop", interrupted: true, detail: "cancelled" },
    ],
    ["running + stop → still running (the hook ends it)", running, answered, { status: "running" }],
    ["stop + failure → failure", stopped, failure, { status: "failure" }],
    [
      "stop without text + stop → the transcript's text",
      stopped,
      answered,
      { status: "stop", message: "hi" },
    ],
    ["nothing said → unchanged", running, null, { status: "running" }],
  ] as const)("%s", (_name, turn, signal, expected) => {
    expect(applyTranscriptEnd(turn, signal)).toMatchObject(expected);
  });
});

describe("geminiTurnEnd", () => {
  test("no turn in the transcript says nothing", () => {
    expect(geminiTurnEnd("", null)).toBeNull();
  });
});

describe("launch options per provider", () => {
  test("registry routes every ProviderId", () => {
    expect(["claude", "codex", "gemini"].map((id) => getProvider(id as never).id)).toEqual([
      "claude",
      "codex",
      "gemini",
    ]);
  });

  test.each([
    [codex, { allowedTools: ["Bash"] }, /codex/],
    [codex, { permissionMode: "manual" }, /codex/],
    [codex, { launchFlags: ["--settings"] }, /--settings is not supported with --provider codex/],
    [gemini, { permissionMode: "dontAsk" }, /gemini/],
    [gemini, { launchFlags: ["--settings", "--continue"] }, /--settings, --continue are not supported/],
  ] as const)("%#: a usage error naming the provider", (provider, options, message) => {
    expect(provider.checkLaunchOptions?.(options as never)).toMatch(message);
  });

  test.each([
    [codex, { unattended: true }],
    [codex, { permissionMode: "bypassPermissions" }],
    [gemini, { unattended: true, allowedTools: ["run_shell_command"] }],
    [gemini, { permissionMode: "acceptEdits" }],
  ] as const)("%#: supported options pass", (provider, options) => {
    expect(provider.checkLaunchOptions?.(options as never)).toBeNull();
  });
});
