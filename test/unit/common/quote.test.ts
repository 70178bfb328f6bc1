import { expect, test } from "bun:test";
import { quoteArg } from "../../../src/core/common/quote.ts";

test.each([
  ["bogus", "bogus"],
  ["--model", "--model"],
  ["é😀", "é😀"],
  ["", '""'],
  ["two words", '"two words"'],
  ["a\nb", '"a\\nb"'],
  ["\u202eevil", '"\\u202eevil"'],
  ["x".repeat(100), `${"x".repeat(60)}…`],
])("quoteArg(%j) is %s: one line, never a raw control character", (word, shown) => {
  expect(quoteArg(word)).toBe(shown);
});
