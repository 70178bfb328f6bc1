import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { classifyOpencodeScreen, stillOpencodeScreen } from "../../../src/core/providers/opencode/screen.ts";

/** Screens of the real opencode 1.18.33 in a 160×50 tmux pane (test/fixtures/opencode/screens). */
const screen = (name: string) =>
  readFileSync(join(import.meta.dir, "..", "..", "fixtures", "opencode", "screens", `${name}.txt`), "utf8");

describe("opencode screens", () => {
  test.each([
    ["home", "ready"],
    ["interrupted", "ready"],
    ["busy", "busy"],
    ["busy-esc", "busy"],
    ["permission", "input"],
    ["question", "input"],
    ["exited", "exited"],
  ])("%s is %s", (name, kind) => {
    expect(classifyOpencodeScreen(screen(name)).kind as string).toBe(kind);
  });

  test("the permission box's text is its title, what it asks and its patterns", () => {
    expect(classifyOpencodeScreen(screen("permission"))).toEqual({
      kind: "input",
      text: "△ Permission required\n  ← Access external directory /tmp/oc\nPatterns\n- /tmp/oc/*",
    });
  });

  test("the question box's text is the question and its options", () => {
    expect(classifyOpencodeScreen(screen("question"))).toEqual({
      kind: "input",
      text: "Which color?\n1. Red\n   Red\n2. Blue\n   Blue\n3. Type your own answer",
    });
  });

  test("the animated bar does not count as a change", () => {
    const busy = screen("busy");
    expect(stillOpencodeScreen(busy.replace("⬝⬝⬝⬝⬝⬝⬝⬝", "⬝⬝■■■■■■"))).toBe(stillOpencodeScreen(busy));
  });

  test("a blank pane is busy (a view being built: at start, and after the first prompt's Enter)", () => {
    expect(classifyOpencodeScreen("").kind).toBe("busy");
    expect(classifyOpencodeScreen("\n   \n\n").kind).toBe("busy");
  });

  test("anything else unknown is unknown", () => {
    expect(classifyOpencodeScreen("loading…").kind).toBe("unknown");
  });
});
