import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { planAnswer } from "../../../src/core/fleet/answer.ts";
import { readOpencodeMenu } from "../../../src/core/providers/opencode/answer.ts";
import { opencode } from "../../../src/core/providers/opencode/provider.ts";

/**
 * `umbel answer` on opencode 1.18.33: its permission box is one row (`Allow once   Allow always
 * Reject`) that marks its choice by colour only, so the reader gets the screen with its escapes
 * (`capture-pane -e`, test/fixtures/opencode/screens/*.ansi, captured from the real TUI).
 */

const screen = (file: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "opencode", "screens", file), "utf8");
const plan = (file: string, choice: string) =>
  planAnswer(readOpencodeMenu(screen(file)), choice, opencode.answer?.meanings);

describe("opencode's menus", () => {
  test("the permission row: three options by position, the highlighted one read from its colour", () => {
    expect(opencode.answer?.escapes).toBe(true);
    expect(readOpencodeMenu(screen("permission-once.ansi"))).toEqual([
      { number: 1, label: "Allow once", key: null, keys: ["Enter"] },
      { number: 2, label: "Allow always", key: null, keys: ["Right", "Enter"], confirm: "Confirm" },
      { number: 3, label: "Reject", key: null, keys: ["Left", "Enter"] },
    ]);
  });

  test.each([
    // Allow once highlighted (as the box opens)
    ["permission-once.ansi", "allow", ["Enter"], "Allow once", undefined],
    ["permission-once.ansi", "always", ["Right", "Enter"], "Allow always", "Confirm"],
    ["permission-once.ansi", "deny", ["Left", "Enter"], "Reject", undefined],
    ["permission-once.ansi", "2", ["Right", "Enter"], "Allow always", "Confirm"],
    ["permission-once.ansi", "reject", ["Left", "Enter"], "Reject", undefined],
    ["permission-once.ansi", "Allow o", ["Enter"], "Allow once", undefined],
    // Allow always highlighted (a Right already pressed): moves from there, either way round
    ["permission-always.ansi", "allow", ["Left", "Enter"], "Allow once", undefined],
    ["permission-always.ansi", "always", ["Enter"], "Allow always", "Confirm"],
    ["permission-always.ansi", "deny", ["Right", "Enter"], "Reject", undefined],
    // the confirmation "Allow always" opens: Confirm, or Cancel back to the box and Reject there
    ["permission-confirm.ansi", "always", ["Enter"], "Confirm", undefined],
    ["permission-confirm.ansi", "Confirm", ["Enter"], "Confirm", undefined],
    ["permission-confirm.ansi", "deny", ["Right", "Enter"], "Cancel", "Reject"],
    ["permission-confirm-cancel.ansi", "always", ["Left", "Enter"], "Confirm", undefined],
    // the question box is a numbered list: a digit picks and submits (measured on 1.18.33)
    ["question.ansi", "Blue", ["2"], "Blue", undefined],
    ["question.ansi", "1", ["1"], "Red", undefined],
  ] as const)("%s: %s → %j (%s)", (file, choice, keys, label, confirm) => {
    const planned = plan(file, choice);
    expect(planned).toMatchObject({ ok: true, keys });
    expect(planned.ok && planned.option?.label).toBe(label);
    expect(planned.ok ? planned.confirm : "").toBe(confirm);
  });

  test("a box whose highlight cannot be read (no colours) is refused with the keys to use, never guessed", () => {
    const planned = plan("permission.txt", "allow");
    expect(planned.ok).toBe(false);
    expect(planned.ok ? "" : planned.reason).toContain("does not show which option is highlighted");
    expect(planned.ok ? "" : planned.reason).toContain("1. Allow once; 2. Allow always; 3. Reject");
  });

  test("allow on the confirmation is refused: it has no such option", () => {
    const planned = plan("permission-confirm.ansi", "allow");
    expect(planned.ok ? "" : planned.reason).toContain("(options: 1. Confirm; 2. Cancel)");
  });

  test("the confirmation that Allow always opens is input too, its text the box", () => {
    expect(opencode.classifyScreen(screen("permission-confirm.txt"))).toEqual({
      kind: "input",
      text: "△ Always allow\nThis will allow the following patterns until OpenCode is restarted\n- /tmp/oc/*",
    });
  });
});
