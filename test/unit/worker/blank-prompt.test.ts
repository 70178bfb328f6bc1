import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { checkPrintInput, PrintInput, parseStreamInput } from "../../../src/core/print/input.ts";
import { SendInput } from "../../../src/core/schemas.ts";
import { isBlankPrompt } from "../../../src/core/worker/prompt.ts";
import { loadWorkflow } from "../../../src/core/workflow/validate.ts";
import { executeStep } from "../../../src/operations/workflow/step.ts";
import { createFakeWorld } from "../../helpers/fake-deps.ts";

/**
 * A blank prompt pasted into a TUI submits nothing, so send could only fail after its re-Enters
 * (exit 1 after 4.7 s). Blank is what is left after send's own normalisation (control characters
 * dropped) being whitespace: every face refuses it at once as a usage error (exit 2).
 */
const BLANK = ["", " ", "\t", "\n\r\n", " \u0001\u001b ", "\u00a0\u2003"];
const NOT_BLANK = [" x ", "\tindented", "/help", "é", "0"];

describe("isBlankPrompt", () => {
  test.each(BLANK)("%j is blank", (prompt) => {
    expect(isBlankPrompt(prompt)).toBe(true);
  });
  test.each(NOT_BLANK)("%j is not", (prompt) => {
    expect(isBlankPrompt(prompt)).toBe(false);
  });
});

describe("every face refuses a blank prompt", () => {
  test.each(BLANK)("send (CLI and umbel_send share SendInput): %j", (prompt) => {
    const r = SendInput.safeParse({ name: "w", prompt });
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toBe("the prompt is empty");
  });

  test.each(NOT_BLANK)("send keeps %j byte-exact", (prompt) => {
    expect(SendInput.parse({ name: "w", prompt }).prompt).toBe(prompt);
  });

  test.each(["\t", " \u0001 "])("-p: %j keeps claude -p's shape of message", (prompt) => {
    const input = { ...PrintInput.parse({ prompt }), provider: "claude" as const };
    expect(() => checkPrintInput(input)).toThrow(UsageError);
    expect(() => checkPrintInput(input)).toThrow("no prompt: give it as an argument or on stdin");
  });

  test("-p --input-format stream-json: a blank user message names its line", () => {
    const lines = [
      '{"type":"user","message":{"content":"hi"}}',
      '{"type":"user","message":{"content":" \\t"}}',
    ];
    expect(() => parseStreamInput(lines.join("\n"))).toThrow("stdin line 2: the message is empty");
  });

  test("a workflow step's prompt", () => {
    const text = 'workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: "  \\t" }\n';
    expect(() => loadWorkflow(text, "wf.yaml")).toThrow("wf.yaml:3:30: steps[0].prompt: the prompt is empty");
  });
});

describe("a workflow step whose prompt renders blank", () => {
  test("fails as usage (2) before a worker is acquired", async () => {
    const world = createFakeWorld();
    let acquired = 0;
    const result = await executeStep({
      deps: world.deps,
      step: { id: "s", run: "a", prompt: "{{ env.EMPTY }}" },
      prompt: " \n",
      cwd: "/work",
      baseDir: "/work",
      acquire: async () => {
        acquired++;
        return "a-1";
      },
      onRunning: () => undefined,
    });
    expect(acquired).toBe(0);
    expect(result).toMatchObject({
      ok: false,
      failure: {
        outcome: "usage",
        exitCode: 2,
        message: "the prompt is empty once its templates are filled in",
      },
    });
  });
});
