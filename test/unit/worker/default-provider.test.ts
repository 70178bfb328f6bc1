import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import {
  dialectProvider,
  PROVIDER_ENV,
  resolveDefaultProvider,
} from "../../../src/core/worker/default-provider.ts";

/**
 * The provider when none is given (issue 21, item 2): UMBEL_PROVIDER, else config.toml's
 * `provider`, else the dialect's own CLI (umbel exec → codex, gemini -p's → gemini, claude -p's and
 * every verb → claude). An explicit --provider / YAML provider: / MCP argument never gets here.
 */
describe("the default provider", () => {
  test.each([
    [{ fallback: "claude" }, "claude"],
    [{ fallback: "codex" }, "codex"],
    [{ config: "gemini", fallback: "codex" }, "gemini"],
    [{ env: "opencode", config: "gemini", fallback: "codex" }, "opencode"],
    [{ env: "", config: "gemini", fallback: "codex" }, "gemini"],
  ] as const)("%j → %s", (given, expected) => {
    expect(resolveDefaultProvider({ env: undefined, config: undefined, ...given })).toBe(expected);
  });

  test("each dialect's own CLI", () => {
    expect(dialectProvider("claude")).toBe("claude");
    expect(dialectProvider("gemini")).toBe("gemini");
    expect(dialectProvider("codex")).toBe("codex");
  });

  test("a bad UMBEL_PROVIDER is a usage error naming the variable and the near miss", () => {
    const bad = () => resolveDefaultProvider({ env: "claud", config: undefined, fallback: "codex" });
    expect(bad).toThrow(UsageError);
    expect(bad).toThrow(
      'UMBEL_PROVIDER "claud" is not one of claude, codex, gemini, opencode; did you mean claude?',
    );
    try {
      bad();
    } catch (error) {
      expect((error as UsageError).data).toEqual({ variable: PROVIDER_ENV, value: "claud" });
    }
  });
});
