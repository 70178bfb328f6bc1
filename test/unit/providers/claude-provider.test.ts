import { describe, expect, test } from "bun:test";
import { claude } from "../../../src/core/providers/claude/provider.ts";
import { classifyScreen } from "../../../src/core/providers/claude/screen.ts";
import { parseClaudeAnswer } from "../../../src/core/providers/claude/transcript.ts";
import { answerDialog } from "../../../src/core/worker/screen.ts";
import { BUSY, IDLE, PERMISSION, TRUST } from "../../fixtures/claude-screens.ts";

describe("claude screens", () => {
  test("the trust dialog is answered by moving to 'Yes', never a blind Enter", () => {
    expect(classifyScreen(TRUST)).toEqual({
      kind: "dialog",
      dialog: "trust",
      keys: ["Down", "Enter"],
      grantsTrust: true,
      // claude keeps a "Yes" in its own config (~/.claude.json): the answer outlives the worker.
      lasting: true,
      answer: "Yes, I trust this folder",
      folders: ["/tmp/project"],
    });
  });
  test("already on the wanted option: just Enter", () => {
    const moved = TRUST.replace("❯ No, exit", "  No, exit").replace("   Yes, I trust", " ❯ Yes, I trust");
    expect(classifyScreen(moved)).toEqual({
      kind: "dialog",
      dialog: "trust",
      keys: ["Enter"],
      grantsTrust: true,
      lasting: true,
      answer: "Yes, I trust this folder",
      folders: ["/tmp/project"],
    });
  });
  test("API key dialog: move up to Yes", () => {
    const screen =
      "  Detected a custom API key in your environment\n\n    Yes\n  ❯ No (recommended)\n\n  Enter to confirm";
    expect(classifyScreen(screen)).toEqual({
      kind: "dialog",
      dialog: "api-key",
      keys: ["Up", "Enter"],
      answer: "Yes",
      // Its "Yes" is kept in .claude.json's customApiKeyResponses.approved (measured, 2.1.332).
      lasting: true,
    });
  });
  test.each([
    [IDLE, "ready"],
    [BUSY, "busy"],
    [PERMISSION, "input"],
    ["Select login method:\n❯ 1. Claude account with subscription", "sign-in"],
    ["Claude Code didn't start because this folder isn't trusted.", "exited"],
    ["  Settings Warning\n  hooks.Stop: bad", "dialog"],
    ["loading…", "unknown"],
  ])("classifies %#", (screen, kind) => {
    expect(classifyScreen(screen).kind).toBe(kind as never);
  });
  test("the permission prompt text is the evidence", () => {
    const state = classifyScreen(PERMISSION);
    expect(state.kind === "input" && state.text).toContain("Do you want to proceed?");
    expect(state.kind === "input" && state.text).toContain("echo hi > x.txt");
  });
  test("no highlighted option: no answer", () => {
    expect(answerDialog("  Yes, I trust this folder\n  No, exit", "Yes, I trust this folder")).toBeNull();
  });
});

describe("claude prompts", () => {
  test.each([
    // A leading space does not stop claude from running a known command; a folded paste does.
    ["/compact now", "/compact now\n\n\n"],
    ["  /exit", "  /exit\n\n\n"],
    ["\n/help", "\n/help\n\n"],
    ["/a\nb\nc", "/a\nb\nc\n"],
    ["/a\nb\nc\nd", "/a\nb\nc\nd"],
    [`/x ${"y".repeat(800)}`, `/x ${"y".repeat(800)}`],
    ["a /slash later", "a /slash later"],
    ["!ls", " !ls"],
    ["!ls\na\nb\nc", " !ls\na\nb\nc"],
    ["a\r\nb\rc", "a\nb\nc"],
    ["before\x1b[201~after", "before[201~after"],
    ["tab\there", "tab\there"],
    ["bell\x07", "bell"],
    ["plain", "plain"],
  ])("%p → %p", (input, output) => {
    expect(claude.preparePrompt(input)).toBe(output);
  });
});

describe("claude launch", () => {
  const base = { bin: "/bin/claude", sessionId: "sid", hookCommand: "sh '/h.sh' '/e'", isRoot: false };
  test("hooks ride on --settings, one command per event, naming its event (hook.sh never reads it from the payload)", () => {
    const plan = claude.planLaunch(base);
    const i = plan.argv.indexOf("--settings");
    const settings = JSON.parse(plan.argv[i + 1] ?? "{}");
    for (const event of [
      "Stop",
      "StopFailure",
      "Notification",
      "UserPromptSubmit",
      "PermissionRequest",
      "SessionStart",
    ]) {
      expect(settings.hooks[event][0].hooks[0].command).toBe(`sh '/h.sh' '/e' ${event}`);
    }
    expect(plan.argv.slice(0, 3)).toEqual(["/bin/claude", "--session-id", "sid"]);
    expect(plan.env).toEqual({ DISABLE_AUTOUPDATER: "1" });
  });
  test("unattended as root: bypass mode, no warning dialog, IS_SANDBOX", () => {
    const plan = claude.planLaunch({ ...base, unattended: true, isRoot: true });
    expect(plan.argv).toContain("bypassPermissions");
    expect(
      JSON.parse(plan.argv[plan.argv.indexOf("--settings") + 1] ?? "{}").skipDangerousModePermissionPrompt,
    ).toBe(true);
    expect(plan.env.IS_SANDBOX).toBe("1");
  });
  test("model, permission mode and allowed tools", () => {
    const plan = claude.planLaunch({
      ...base,
      model: "sonnet",
      permissionMode: "manual",
      allowedTools: ["Bash(git:*)", "Edit"],
    });
    expect(plan.argv.join(" ")).toContain(
      "--model sonnet --permission-mode manual --allowedTools Bash(git:*),Edit",
    );
  });
});

const line = (o: unknown) => JSON.stringify(o);
const user = (promptId: string, content: string, kind = "human") =>
  line({ type: "user", promptId, origin: { kind }, message: { role: "user", content }, sessionId: "S" });
const assistant = (id: string, blocks: unknown[], extra: object = {}) =>
  line({
    type: "assistant",
    isSidechain: false,
    message: { id, role: "assistant", content: blocks },
    ...extra,
  });
const text = (t: string) => ({ type: "text", text: t });

describe("claude transcript", () => {
  test("joins the text blocks of the last message id", () => {
    const t = [
      user("p1", "hi"),
      assistant("m1", [{ type: "thinking", thinking: "…" }]),
      assistant("m1", [text("Part one.")]),
      assistant("m1", [text("Part two.")]),
      line({ type: "system", subtype: "turn_duration" }),
    ].join("\n");
    expect(parseClaudeAnswer(t, "p1")).toEqual({
      text: "Part one.\n\nPart two.",
      complete: true,
      sessionId: "S",
      assistantMessages: 1,
    });
  });
  test("tool use then text: the final message wins; earlier turns are ignored", () => {
    const t = [
      user("p0", "old"),
      assistant("m0", [text("old answer")]),
      user("p1", "new"),
      assistant("m1", [text("let me look"), { type: "tool_use", name: "Bash" }]),
      line({ type: "user", message: { content: [{ type: "tool_result" }] }, origin: { kind: "tool" } }),
      assistant("m2", [text("done")]),
    ].join("\n");
    expect(parseClaudeAnswer(t, null).text).toBe("done");
    expect(parseClaudeAnswer(t, "p0").text).toBe("old answer");
    expect(parseClaudeAnswer(t, null).assistantMessages).toBe(2);
  });
  test("walks back past a final message without text; skips API errors and sidechains", () => {
    const t = [
      user("p1", "q"),
      assistant("m1", [text("real answer")]),
      assistant("m2", [{ type: "tool_use" }]),
      assistant("m3", [text("API Error: 500")], { isApiErrorMessage: true }),
      line({ type: "assistant", isSidechain: true, message: { id: "s", content: [text("sub")] } }),
    ].join("\n");
    expect(parseClaudeAnswer(t, "p1").text).toBe("real answer");
  });
  test("a subagent report turn after the human turn supplies the answer", () => {
    const t = [
      user("p1", "q"),
      assistant("m1", [text("started")]),
      user("p2", "<agent-message>", "peer"),
      assistant("m2", [text("final")]),
    ].join("\n");
    expect(parseClaudeAnswer(t, "p1").text).toBe("final");
  });
  test("no answer yet, partial last line, no turn", () => {
    expect(parseClaudeAnswer(`${user("p1", "q")}\n{"type":"assis`, "p1")).toEqual({
      text: null,
      complete: false,
      sessionId: "S",
      assistantMessages: 0,
    });
    expect(parseClaudeAnswer("", null).text).toBeNull();
  });
});

describe("claude still screen", () => {
  test("a ticking spinner is not activity", () => {
    const a = BUSY.replace("(1s · ↓ 1 tokens)", "(3s · ↓ 10 tokens)");
    const b = BUSY.replace("✢ Puttering… (1s · ↓ 1 tokens)", "✽ Puttering… (14s · ↓ 122 tokens)");
    expect(claude.stillScreen(a)).toBe(claude.stillScreen(b));
    expect(claude.stillScreen(a)).not.toBe(claude.stillScreen(IDLE));
  });
});
