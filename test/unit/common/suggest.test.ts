import { describe, expect, test } from "bun:test";
import { z } from "zod";
import { choiceError, closest, distance, withArticle } from "../../../src/core/common/suggest.ts";

/** "did you mean": the near miss of a word among the ones a place knows, or nothing. */
describe("closest", () => {
  const PROVIDERS = ["claude", "codex", "gemini", "opencode"];
  const VERBS = ["spawn", "send", "wait", "answer", "read", "kill", "prune", "status", "ls", "pool"];
  test.each([
    ["claud", PROVIDERS, "claude"],
    ["Claude", PROVIDERS, "claude"],
    ["gemni", PROVIDERS, "gemini"],
    ["open", PROVIDERS, "opencode"],
    ["spwan", VERBS, "spawn"],
    ["stauts", VERBS, "status"],
    ["stream", ["text", "json", "stream-json"], "stream-json"],
    ["JSON", ["text", "json", "stream-json"], "json"],
    ["warn", ["warm", "ls", "drain"], "warm"],
  ])("%j among %j → %j", (word, known, expected) => {
    expect(closest(word, known)).toBe(expected);
  });

  test.each([
    ["frob", ["warm", "ls", "drain"]],
    ["yaml", ["text", "json", "stream-json"]],
    ["bogus", VERBS],
    ["c", PROVIDERS], // a prefix of two: no guess
    ["", PROVIDERS],
    ["x".repeat(100), PROVIDERS],
  ])("%j among %j: no guess", (word, known) => {
    expect(closest(word, known)).toBeUndefined();
  });

  test("distance: a swap of neighbours is one edit", () => {
    expect(distance("spwan", "spawn")).toBe(1);
    expect(distance("kitten", "sitting")).toBe(3);
    expect(distance("", "abc")).toBe(3);
    expect(distance("same", "same")).toBe(0);
  });
});

describe("choiceError: an enum's message names the value, the choices and the near miss", () => {
  const Format = z.enum(["text", "json", "stream-json"], { error: choiceError });
  const message = (value: unknown) => Format.safeParse(value).error?.issues[0]?.message;
  test.each([
    ["jsn", '"jsn" is not one of text, json, stream-json; did you mean json?'],
    ["yaml", '"yaml" is not one of text, json, stream-json'],
    [3, "3 is not one of text, json, stream-json"],
    [["json"], '["json"] is not one of text, json, stream-json'],
    ["a\nb", '"a\\nb" is not one of text, json, stream-json'],
  ])("%j", (value, expected) => {
    expect(message(value)).toBe(expected);
  });

  test("a missing value keeps zod's own wording", () => {
    expect(z.object({ f: Format }).safeParse({}).error?.issues[0]?.message).toContain("expected one of");
  });
});

describe("withArticle", () => {
  test.each([
    ["input screen", "an input screen"],
    ["error", "an error"],
    ["sign-in screen", "a sign-in screen"],
    ["trust dialog", "a trust dialog"],
    ["update dialog", "an update dialog"],
    ["unknown screen", "an unknown screen"],
    ["ide-nudge dialog", "an ide-nudge dialog"],
  ])("%j → %j", (noun, expected) => {
    expect(withArticle(noun)).toBe(expected);
  });
});
