import { describe, expect, test } from "bun:test";
import {
  BinaryNotFoundError,
  DeliveryError,
  EXIT,
  formatError,
  InputRequiredError,
  InternalError,
  NameTakenError,
  renderErrorJson,
  TmuxTimeoutError,
  toExitCode,
  toUmbelError,
  UsageError,
  WorkerBusyError,
  WorkerDeadError,
  WorkerNotFoundError,
} from "../../../src/core/errors.ts";

describe("errors → exit codes", () => {
  test.each([
    [new UsageError("x"), "usage", 2],
    [new WorkerNotFoundError("x"), "not-found", 3],
    [new NameTakenError("x"), "name-taken", 4],
    [new WorkerBusyError("x"), "busy", 4],
    [new DeliveryError("x"), "not-delivered", 1],
    [new TmuxTimeoutError("x"), "tmux-timeout", 1],
    [new WorkerDeadError("x"), "dead", 125],
    [new InputRequiredError("x"), "input", 126],
    [new BinaryNotFoundError("x"), "binary-not-found", 127],
  ])("%p", (error, code, exitCode) => {
    expect(error.code).toBe(code);
    expect(error.exitCode).toBe(exitCode);
    expect(toExitCode(error)).toBe(exitCode);
  });

  test("unknown errors become internal errors with a report hint", () => {
    const e = toUmbelError(new TypeError("boom"));
    expect(e).toBeInstanceOf(InternalError);
    expect(e.exitCode).toBe(EXIT.internal);
    expect(formatError(new TypeError("boom"))).toBe("umbel: boom (this is a bug in umbel; please report it)");
  });

  test("json keeps code, class and data", () => {
    const json = renderErrorJson(new NameTakenError("taken", { name: "w1" }));
    expect(json.error).toEqual({
      code: "name-taken",
      class: "NameTakenError",
      message: "taken",
      exitCode: 4,
      data: { name: "w1" },
    });
  });
});
