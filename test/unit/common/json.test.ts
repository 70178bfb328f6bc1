import { describe, expect, test } from "bun:test";
import { parseJson, parseJsonObject } from "../../../src/core/common/json.ts";

describe("parseJson", () => {
  test.each([
    ['{"a":1}', { a: 1 }],
    ["[1,2]", [1, 2]],
    ["null", null],
    ['"text"', "text"],
    ["  7\n", 7],
  ])("%j is the JSON value %j", (text, value) => {
    expect(parseJson(text)).toEqual(value);
  });

  test.each(["", "   ", '{"a":', "{oops}", "undefined"])("%j is not JSON: undefined", (text) => {
    expect(parseJson(text)).toBeUndefined();
  });
});

describe("parseJsonObject", () => {
  test.each([
    ['{"a":1}', { a: 1 }],
    ["[1,2]", null],
    ["null", null],
    ["7", null],
    ["", null],
    ['{"a":', null],
  ])("%j → %j", (text, value) => {
    expect(parseJsonObject(text)).toEqual(value);
  });
});
