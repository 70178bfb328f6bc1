import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { inputIdOf, planAnswer, readMenu, showsPrompt } from "../../../src/core/fleet/answer.ts";
import { claude } from "../../../src/core/providers/claude/provider.ts";
import { codex } from "../../../src/core/providers/codex/provider.ts";
import { gemini } from "../../../src/core/providers/gemini/provider.ts";
import type { Provider } from "../../../src/core/providers/types.ts";
import { QUESTION } from "../../fixtures/claude-screens.ts";
import { PERMISSION as GEMINI_PERMISSION } from "../providers/gemini-samples.ts";

/** The permission menu of claude 2.1.332 in manual mode, as measured on the stub (docs/providers.md). */
const CLAUDE_PERMISSION = `
● Bash(echo k > asked.txt)
  ⎿  Waiting…
────────────────────────────────────────────────────────────────────────────────
 Bash command
 stub bash
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 echo k > asked.txt
╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌╌
 Do you want to proceed?
 ❯ 1. Yes
   2. Yes, and always allow access to /tmp/w from this project
   3. Yes, and switch to auto mode · auto mode handles these prompts for you
   4. No

 Esc to cancel · Tab to amend
`;
const CODEX_APPROVAL = readFileSync(
  join(import.meta.dir, "..", "..", "fixtures", "codex", "screens", "approval.txt"),
  "utf8",
);

const plan = (provider: Provider, screen: string, choice: string) =>
  planAnswer(readMenu(screen), choice, provider.answer?.meanings);

describe("answer: a choice by meaning becomes the keys of the prompt on screen", () => {
  test.each([
    ["claude", claude, CLAUDE_PERMISSION, "allow", ["1"], "Yes"],
    [
      "claude",
      claude,
      CLAUDE_PERMISSION,
      "always",
      ["2"],
      "Yes, and always allow access to /tmp/w from this project",
    ],
    ["claude", claude, CLAUDE_PERMISSION, "deny", ["4"], "No"],
    [
      "claude",
      claude,
      CLAUDE_PERMISSION,
      "3",
      ["3"],
      "Yes, and switch to auto mode · auto mode handles these prompts for you",
    ],
    [
      "claude",
      claude,
      CLAUDE_PERMISSION,
      "yes, and switch",
      ["3"],
      "Yes, and switch to auto mode · auto mode handles these prompts for you",
    ],
    ["codex", codex, CODEX_APPROVAL, "allow", ["y"], "Yes, proceed"],
    [
      "codex",
      codex,
      CODEX_APPROVAL,
      "always",
      ["p"],
      "Yes, and don't ask again for commands that start with `touch esc.txt`",
    ],
    ["codex", codex, CODEX_APPROVAL, "deny", ["Escape"], "No, and tell Codex what to do differently"],
    ["gemini", gemini, GEMINI_PERMISSION, "allow", ["1"], "Allow once"],
    ["gemini", gemini, GEMINI_PERMISSION, "always", ["2"], "Allow for this session"],
    ["gemini", gemini, GEMINI_PERMISSION, "deny", ["Escape"], "No, suggest changes"],
  ] as const)("%s %#: %s", (_id, provider, screen, choice, keys, label) => {
    const planned = plan(provider, screen, choice);
    expect(planned).toMatchObject({ ok: true, keys });
    expect(planned.ok && planned.option?.label).toBe(label);
  });

  test("claude's question (AskUserQuestion) is input, and its options are answered by label or number", () => {
    expect(claude.classifyScreen(QUESTION)).toEqual({
      kind: "input",
      text: " ☐ Colour\nWhich colour should the button be?\n❯ 1. Red\n     warm\n  2. Blue\n     cool\n  3. Type something.\n  4. Chat about this\nEnter to select · ↑/↓ to navigate · Esc to cancel",
    });
    expect(plan(claude, QUESTION, "Blue")).toMatchObject({
      ok: true,
      keys: ["2"],
      option: { label: "Blue" },
    });
    expect(plan(claude, QUESTION, "1")).toMatchObject({ ok: true, keys: ["1"], option: { label: "Red" } });
    expect(plan(claude, QUESTION, "deny")).toEqual({ ok: true, option: null, keys: ["Escape"] });
    expect(plan(claude, QUESTION, "allow").ok).toBe(false);
    expect(showsPrompt(QUESTION, "AskUserQuestion: Which colour should the button be?")).toBe(true);
  });

  test("the menu is the last numbered run on screen, never a list the model wrote above it", () => {
    // gemini's tips ("1. Create GEMINI.md files …") sit above the box on the same screen.
    expect(readMenu(GEMINI_PERMISSION).map((o) => o.label)).toEqual([
      "Allow once",
      "Allow for this session",
      "No, suggest changes",
    ]);
  });

  test.each([
    ["an option the menu does not have", "7", "has no option 7"],
    ["a label no option starts with", "maybe", 'no option starts with "maybe"'],
    ["a label several options start with", "Yes, and", "more than one option starts with"],
  ])("%s is refused with the options listed", (_what, choice, reason) => {
    const planned = plan(claude, CLAUDE_PERMISSION, choice);
    expect(planned.ok).toBe(false);
    expect(planned.ok ? "" : planned.reason).toContain(reason);
    expect(planned.ok ? "" : planned.reason).toContain("1. Yes; 2. Yes, and always");
  });

  test("deny on a menu without a No is Escape; always without such an option is refused", () => {
    const menu = readMenu(" ❯ 1. Yes\n   2. Yes, and switch to auto mode\n");
    expect(planAnswer(menu, "deny", claude.answer?.meanings)).toEqual({
      ok: true,
      option: null,
      keys: ["Escape"],
    });
    expect(planAnswer(menu, "always", claude.answer?.meanings).ok).toBe(false);
  });
});

describe("the prompt's id and whether the screen shows it", () => {
  const input = {
    status: "input" as const,
    promptId: "p1",
    text: "Bash: echo k > asked.txt",
    detail: "permission",
    at: 7,
  };

  test("the same prompt has the same id in every process; another line or text is another id", () => {
    expect(inputIdOf(input)).toBe(inputIdOf({ ...input }));
    expect(inputIdOf(input)).toMatch(/^in-[0-9a-f]{12}$/);
    expect(inputIdOf({ ...input, at: 9 })).not.toBe(inputIdOf(input));
    expect(inputIdOf({ ...input, text: "Bash: rm x" })).not.toBe(inputIdOf(input));
  });

  test.each([
    ["claude", CLAUDE_PERMISSION, "Bash: echo k > asked.txt", true],
    ["claude", CLAUDE_PERMISSION, "Bash: rm -rf build", false],
    ["codex", CODEX_APPROVAL, "Bash: touch esc.txt (stub escalation)", true],
    ["gemini", GEMINI_PERMISSION, "Shell: touch approve-me.txt", true],
    ["gemini", GEMINI_PERMISSION, "Shell: touch other.txt", false],
    ["claude", CLAUDE_PERMISSION, "permission_prompt", true],
  ])("%s: %s", (_id, screen, text, shown) => {
    expect(showsPrompt(screen, text)).toBe(shown);
  });
});
