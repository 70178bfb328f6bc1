import { describe, expect, test } from "bun:test";
import { KeysInput } from "../../../src/core/schemas.ts";
import { isKeyName } from "../../../src/core/worker/key-names.ts";

/**
 * tmux's send-keys types an argument it cannot read as a key name as literal text, and exits 0: so
 * `keys w1 NoSuchKey` typed "NoSuchKey" into the composer. The verdicts below are tmux 3.3a's own
 * (each probed with `bind-key -T probe KEY`, which refuses what send-keys would type).
 */
describe("isKeyName", () => {
  test.each([
    "Enter",
    "enter",
    "Escape",
    "Tab",
    "BTab",
    "S-Tab",
    "BSpace",
    "Space",
    "Up",
    "Down",
    "Left",
    "Right",
    "Home",
    "End",
    "PageUp",
    "PgUp",
    "pgup",
    "PPage",
    "PageDown",
    "PgDn",
    "NPage",
    "IC",
    "Insert",
    "DC",
    "Delete",
    "F1",
    "F12",
    "C-F12",
    "KP/",
    "KP*",
    "KP.",
    "KP0",
    "KPEnter",
    "C-c",
    "c-c",
    "M-x",
    "s-x",
    "C-M-S-Up",
    "c-M-s-enter",
    "M-C-a",
    "^c",
    "^C-a",
    "^",
    "^^",
    "C-^",
    "C-Space",
    "C-1",
    "C-/",
    "C-?",
    "C--",
    "-",
    "1",
    "y",
    " ",
    "é",
    "M-é",
    "C-é",
    "😀",
    "\u007f",
  ])("accepts %p", (key) => {
    expect(isKeyName(key)).toBe(true);
  });

  test.each([
    "",
    "NoSuchKey",
    "ab",
    "F13",
    "F20",
    "F0",
    "None",
    "Any",
    "0x41",
    "User0",
    "MouseDown1",
    "C-",
    "S-",
    "X-a",
    "C-^a",
    "C-{",
    "C-~",
    "C-M-{",
    "C-|",
    'C-"',
    "C-$",
    "C-%",
    "C-&",
    "C-*",
    "C-}",
    "\t",
    "\n",
    "\u0001",
    "DEL",
    "👍🏽",
    "Enter ",
  ])("rejects %p", (key) => {
    expect(isKeyName(key)).toBe(false);
  });
});

describe("KeysInput", () => {
  test("an unknown key name is a usage error that lists the names and points to literal", () => {
    const r = KeysInput.safeParse({ name: "w1", keys: ["Down", "NoSuchKey"] });
    expect(r.success).toBe(false);
    const issue = r.error?.issues[0];
    expect(issue?.path).toEqual(["keys", 1]);
    expect(issue?.message).toContain('"NoSuchKey"');
    for (const name of ["Enter", "Escape", "Tab", "BSpace", "Up", "PageUp", "F1-F12", "C-", "literal"])
      expect(issue?.message).toContain(name);
  });

  test("key names pass; with literal, any text is typed", () => {
    expect(KeysInput.parse({ name: "w1", keys: ["C-c", "1", "Enter"] }).keys).toEqual(["C-c", "1", "Enter"]);
    expect(KeysInput.parse({ name: "w1", keys: ["NoSuchKey", "two words"], literal: true }).keys).toEqual([
      "NoSuchKey",
      "two words",
    ]);
  });
});
