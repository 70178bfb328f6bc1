import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { decideAttempt, ENFORCE_TEXT, renderFeedback } from "../../../src/core/guard/decide.ts";
import { compileSchema, schemaMismatchText } from "../../../src/core/guard/json-schema.ts";
import type { CheckRun, GuardRecord } from "../../../src/core/guard/record.ts";
import { findGuard, guardLogEntries, guardOfSubmit, structuredOf } from "../../../src/core/guard/record.ts";
import { claude } from "../../../src/core/providers/claude/provider.ts";

/** The pure rules of the guardrails: claude -p's validation wording, the verdicts, the feedback template. */

describe("JSON Schema (claude -p's wording, measured on 2.1.332)", () => {
  const schema = {
    type: "object",
    properties: { a: { type: "string" }, b: { type: "number" }, e: { type: "string", format: "email" } },
    required: ["a", "b"],
  };

  test.each([
    [{ a: "x", b: 1 }, []],
    [{ c: 1 }, ["root: must have required property 'a'", "root: must have required property 'b'"]],
    [{ a: 1, b: 1 }, ["/a: must be string"]],
    // claude does not check formats
    [{ a: "x", b: 1, e: "not an email" }, []],
  ])("%j → %j", (value, errors) => {
    expect(compileSchema(schema)(value)).toEqual(errors);
  });

  test("errors read as claude's tool error", () => {
    expect(schemaMismatchText(["/a: must be string", "root: x"])).toBe(
      "Output does not match required schema: /a: must be string, root: x",
    );
  });

  test("draft-07 schemas are taken too", () => {
    const v = compileSchema({
      $schema: "http://json-schema.org/draft-07/schema#",
      type: "object",
      required: ["a"],
    });
    expect(v({})).toEqual(["root: must have required property 'a'"]);
  });

  test.each([
    [
      { type: "nope" },
      "--json-schema is not a valid JSON Schema: data/type must be equal to one of the allowed values",
    ],
    [{ $ref: "#/missing" }, "--json-schema is not a valid JSON Schema: can't resolve reference #/missing"],
    [[1], "--json-schema is not a valid JSON Schema: it must be a JSON object"],
  ])("%j is a usage error", (bad, message) => {
    const error = (() => {
      try {
        compileSchema(bad);
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toStartWith(message);
  });
});

const record = (over: Partial<GuardRecord> = {}): GuardRecord => ({
  version: 1,
  baseline: 4,
  accept: ["npm test"],
  maxAttempts: 3,
  acceptTimeoutMs: 600_000,
  turns: [4],
  attempts: [],
  phase: "checking",
  enforced: false,
  createdAt: "2026-01-01T00:00:00.000Z",
  ...over,
});
const run = (over: Partial<CheckRun> = {}): CheckRun => ({
  command: "npm test",
  exitCode: 0,
  signal: null,
  timedOut: false,
  durationMs: 1200,
  output: "",
  ...over,
});

describe("verdicts", () => {
  test("every check passed: pass", () => {
    expect(decideAttempt(record(), { checks: [run()] })).toEqual({ kind: "pass" });
  });

  test("a failed check with attempts left: feedback naming the command, its exit and its output", () => {
    const verdict = decideAttempt(record(), {
      checks: [run({ exitCode: 1, output: "1 failing\n  x.test.ts" })],
    });
    expect(verdict).toEqual({
      kind: "retry",
      enforce: false,
      feedback: [
        "[umbel-accept] Your last turn did not pass the accept check `npm test`: it exited with code 1. Fix what it reports, then end your turn; the check runs again (attempt 2 of 3).",
        "",
        "Its output (the last 4 KB):",
        "```",
        "1 failing",
        "  x.test.ts",
        "```",
      ].join("\n"),
    });
  });

  test("a timed-out check says so; a schema asks for the object again", () => {
    const text = renderFeedback(
      record({ jsonSchema: { type: "object" } }),
      run({ exitCode: null, signal: "SIGKILL", timedOut: true, durationMs: 600_000 }),
    );
    expect(text).toContain("it timed out after 10m.");
    expect(text).toContain("Call the StructuredOutput tool again with your final result.");
    expect(text).toContain("(no output)");
  });

  test("the last attempt failed: rejected", () => {
    const verdict = decideAttempt(record({ turns: [4, 9, 14] }), { checks: [run({ exitCode: 2 })] });
    expect(verdict).toEqual({
      kind: "rejected",
      detail: "the accept check `npm test` exited with code 2 (attempt 3 of 3)",
    });
  });

  test("no StructuredOutput call: claude's enforce message, once", () => {
    const missing = { structured: { ok: false, calls: 0, rejected: 0, errors: [] }, checks: [] };
    expect(decideAttempt(record(), missing)).toEqual({
      kind: "retry",
      feedback: ENFORCE_TEXT,
      enforce: true,
    });
    expect(decideAttempt(record({ enforced: true, turns: [4, 9] }), missing)).toMatchObject({
      kind: "rejected",
    });
  });

  test("five invalid calls: claude's error_max_structured_output_retries text", () => {
    const s = { ok: false, calls: 5, rejected: 5, errors: ["/n: must be number"] };
    expect(decideAttempt(record(), { structured: s, checks: [] })).toEqual({
      kind: "rejected",
      detail:
        "Failed to provide valid structured output after 5 attempts — last StructuredOutput error: Output does not match required schema: /n: must be number",
    });
  });
});

describe("records", () => {
  test("a feedback turn's baseline finds its guard", () => {
    const a = record({ baseline: 4, turns: [4, 9] });
    expect(findGuard([a], 9)).toBe(a);
    expect(findGuard([a], 5)).toBeNull();
  });

  test("the turn of a submit event: the first submit at or after the baseline it was sent at", () => {
    // codex fires SessionStart with the first prompt: sent at baseline 0, its submit is event 1.
    const events = [
      { index: 0, name: "SessionStart", payload: { hook_event_name: "SessionStart" } },
      { index: 1, name: "UserPromptSubmit", payload: { hook_event_name: "UserPromptSubmit", prompt: "a" } },
      { index: 2, name: "Stop", payload: { hook_event_name: "Stop" } },
      { index: 3, name: "UserPromptSubmit", payload: { hook_event_name: "UserPromptSubmit", prompt: "b" } },
    ];
    const a = record({ baseline: 0, turns: [0, 3] });
    expect(guardOfSubmit([a], claude, events, 1)).toEqual({ guard: a, baseline: 0 });
    expect(guardOfSubmit([a], claude, events, 3)).toEqual({ guard: a, baseline: 3 });
    expect(guardOfSubmit([record({ baseline: 2, turns: [2] })], claude, events, 1)).toBeNull();
  });

  test("a turn's StructuredOutput calls: the last accepted object, the rejections", () => {
    const entries = [
      { baseline: 4, ok: false, errors: ["e1"] },
      { baseline: 4, ok: true, object: { n: 1 } },
      { baseline: 9, ok: false, errors: ["e2"] },
    ];
    expect(structuredOf(entries, 4)).toEqual({
      found: true,
      object: { n: 1 },
      calls: 2,
      rejected: 1,
      errors: ["e1"],
    });
    expect(structuredOf(entries, 9)).toEqual({
      found: false,
      object: undefined,
      calls: 1,
      rejected: 1,
      errors: ["e2"],
    });
  });

  test("log lines for each check, at the place in the log where it ran", () => {
    const attempt = {
      attempt: 1,
      baseline: 4,
      at: 7,
      passed: false,
      checks: [run({ exitCode: 1 })],
      feedback: "fix",
    };
    expect(
      guardLogEntries([record({ attempts: [attempt] })]).map((e) => [e.index, e.name, e.payload.summary]),
    ).toEqual([
      [7, "umbel:check", "attempt 1: npm test → exit 1 in 1.2s"],
      [7, "umbel:feedback", "attempt 1: feedback sent for attempt 2"],
    ]);
  });
});
