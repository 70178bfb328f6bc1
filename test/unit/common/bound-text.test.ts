import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { boundText, DEFAULT_MAX_CHARS, TextBound } from "../../../src/core/common/bound-text.ts";
import { findHeadings, findSection } from "../../../src/core/common/markdown.ts";
import { UsageError } from "../../../src/core/errors.ts";

const lines = (n: number) => Array.from({ length: n }, (_, i) => `line ${i + 1}`).join("\n");

const DOC = [
  "# Report",
  "intro",
  "## Findings",
  "one",
  "### Detail",
  "deep",
  "## Fixes",
  "```sh",
  "# not a heading",
  "```",
  "done",
].join("\n");

describe("boundText: head and tail", () => {
  test.each([
    // [text, bound, kept text, truncated, fromLine, toLine]
    ["short", {}, "short", false, 1, 1],
    ["", {}, "", false, null, null],
    [lines(5), { maxLines: 2 }, "line 1\nline 2\n", true, 1, 2],
    [lines(5), { mode: "tail", maxLines: 2 }, "line 4\nline 5", true, 4, 5],
    ["a\nb\nc\n", { mode: "tail", maxLines: 1 }, "c\n", true, 3, 3],
    ["a\nb\n", { maxLines: 2 }, "a\nb\n", false, 1, 2],
    [lines(3), { maxChars: 9 }, "line 1\nli", true, 1, 2],
    [lines(3), { mode: "tail", maxChars: 8 }, "2\nline 3", true, 2, 3],
    [lines(3), { maxChars: 100, maxLines: 100 }, lines(3), false, 1, 3],
  ] as const)("%j %j", (text, bound, kept, truncated, fromLine, toLine) => {
    const r = boundText(text, bound);
    expect(r.text).toBe(kept);
    expect(r.report).toMatchObject({ truncated, fromLine, toLine, shownChars: Array.from(kept).length });
    expect(r.report.note === null).toBe(!truncated);
  });

  test("the default limit keeps the first DEFAULT_MAX_CHARS characters and says so", () => {
    const text = "x".repeat(DEFAULT_MAX_CHARS + 500);
    const r = boundText(text);
    expect(r.text.length).toBe(DEFAULT_MAX_CHARS);
    expect(r.report).toMatchObject({ mode: "head", truncated: true, totalChars: DEFAULT_MAX_CHARS + 500 });
    expect(r.report.note).toContain(`first ${DEFAULT_MAX_CHARS} of ${DEFAULT_MAX_CHARS + 500} characters`);
  });

  test("characters are code points: a cut never splits an emoji", () => {
    const r = boundText("🎉🎉🎉", { maxChars: 2 });
    expect(r.text).toBe("🎉🎉");
    expect(r.report).toMatchObject({ totalChars: 3, shownChars: 2 });
  });

  test("a cut lists the headings so the caller can pick a section", () => {
    const r = boundText(DOC, { maxLines: 2 });
    expect(r.report.headings).toEqual(["# Report", "## Findings", "### Detail", "## Fixes"]);
    expect(boundText(DOC).report.headings).toEqual([]);
  });

  test("full returns everything and refuses limits", () => {
    const text = "y".repeat(DEFAULT_MAX_CHARS * 2);
    expect(boundText(text, { mode: "full" })).toMatchObject({ text, report: { truncated: false } });
    expect(() => boundText(text, { mode: "full", maxChars: 10 })).toThrow(UsageError);
  });
});

describe("boundText: section", () => {
  test.each([
    ["Findings", "## Findings\none\n### Detail\ndeep", 3, 6],
    ["## findings", "## Findings\none\n### Detail\ndeep", 3, 6],
    ["detail", "### Detail\ndeep", 5, 6],
    ["Fix", "## Fixes\n```sh\n# not a heading\n```\ndone", 7, 11],
  ])("%p", (wanted, text, fromLine, toLine) => {
    const r = boundText(DOC, { section: wanted });
    expect(r.text).toBe(text);
    expect(r.report).toMatchObject({ mode: "section", truncated: true, fromLine, toLine });
    expect(r.report.note).toContain("showed section");
  });

  test("a section is itself bounded", () => {
    const r = boundText(DOC, { mode: "section", section: "Findings", maxLines: 2 });
    expect(r.text).toBe("## Findings\none\n");
    expect(r.report.note).toContain("cut after");
  });

  test("no match returns nothing and the outline", () => {
    const r = boundText(DOC, { section: "Nope" });
    expect(r.text).toBe("");
    expect(r.report).toMatchObject({ section: null, fromLine: null, shownChars: 0, truncated: true });
    expect(r.report.note).toContain("## Findings");
    expect(() => boundText(DOC, { mode: "section" })).toThrow(UsageError);
  });
});

describe("headings", () => {
  test("ATX headings outside code fences, 1-based lines", () => {
    expect(findHeadings(DOC).map((h) => [h.line, h.level, h.title])).toEqual([
      [1, 1, "Report"],
      [3, 2, "Findings"],
      [5, 3, "Detail"],
      [7, 2, "Fixes"],
    ]);
    expect(findHeadings("#hashtag\n## Closed ##")).toEqual([{ line: 2, level: 2, title: "Closed" }]);
    expect(findSection("no headings", "x")).toBeNull();
  });

  test("the schema is strict and describes every field", () => {
    expect(TextBound.safeParse({ mode: "middle" }).success).toBe(false);
    expect(TextBound.safeParse({ maxChars: 0 }).success).toBe(false);
    expect(TextBound.safeParse({ extra: 1 }).success).toBe(false);
    const json = z.toJSONSchema(TextBound) as { properties: Record<string, { description?: string }> };
    for (const field of Object.values(json.properties)) expect(field.description).toBeTruthy();
  });
});
