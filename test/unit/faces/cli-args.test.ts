import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { KeysInput, SendInput } from "../../../src/core/schemas.ts";
import { SpawnInput } from "../../../src/core/spawn/input.ts";
import { inputFromArgs } from "../../../src/faces/cli/args.ts";

/** argv values reach the schema as given: an empty one is the schema's to refuse, never dropped. */
describe("inputFromArgs", () => {
  test.each([
    [["x", "--cwd", ""], { name: "x", cwd: "" }, "--cwd: must not be empty"],
    [["x", "--model="], { name: "x", model: "" }, "--model: must not be empty"],
    [["x", "--start-timeout", ""], { name: "x", "start-timeout": "" }, '--start-timeout: not a duration: ""'],
  ])("spawn %j", (rawArgs, args, message) => {
    expect(() => inputFromArgs(SpawnInput, args, rawArgs)).toThrow(UsageError);
    expect(() => inputFromArgs(SpawnInput, args, rawArgs)).toThrow(message);
  });

  test("send with an empty prompt argument: the positional is named as the synopsis names it", () => {
    expect(() => inputFromArgs(SendInput, { name: "w", prompt: "" }, ["w", ""], ["name", "prompt"])).toThrow(
      "PROMPT: the prompt is empty",
    );
  });

  test("keys names the key that is not one", () => {
    expect(() =>
      inputFromArgs(KeysInput, { name: "w", keys: ["Up", "Nope"] }, ["w", "Up", "Nope"], ["name", "keys"]),
    ).toThrow('KEYS: unknown key name "Nope"');
  });

  test("a flag is still named as a flag beside positionals", () => {
    expect(() => inputFromArgs(SpawnInput, { name: "w", cwd: "" }, ["w", "--cwd", ""], ["name"])).toThrow(
      "--cwd: must not be empty",
    );
  });
});
