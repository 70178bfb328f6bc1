import { describe, expect, test } from "bun:test";
import { UsageError } from "../../../src/core/errors.ts";
import { parseTemplate, renderTemplate } from "../../../src/core/workflow/template.ts";
import { checkEnvironment, loadWorkflow } from "../../../src/core/workflow/validate.ts";

describe("parseTemplate", () => {
  test.each([
    ["plain text", [], []],
    ["{{ env.PR }}", [{ kind: "env", name: "PR", text: "{{ env.PR }}" }], []],
    ["a{{env.X}}b", [{ kind: "env", name: "X", text: "{{env.X}}" }], []],
    [
      "x {{  steps.review-1.outputs.find_ings  }} y",
      [
        {
          kind: "output",
          step: "review-1",
          key: "find_ings",
          text: "{{  steps.review-1.outputs.find_ings  }}",
        },
      ],
      [],
    ],
    ["{{ env }}", [], ["unsupported template {{ env }}"]],
    ["{{ env.A.B }}", [], ["unsupported template {{ env.A.B }}"]],
    ["{{ steps.a.output.k }}", [], ["unsupported template {{ steps.a.output.k }}"]],
    ["{{ steps.a.outputs.k | upper }}", [], ["unsupported template"]],
    ["{{ 1 + 1 }}", [], ["unsupported template"]],
    ["{{ env.X", [], ["unclosed {{"]],
    ["}} is just text", [], []],
  ])("%p", (source, refs, errors) => {
    const parsed = parseTemplate(source);
    expect(parsed.refs).toEqual(refs as never);
    expect(parsed.errors.map((e) => e.message.slice(0, (errors[0] ?? "").length))).toEqual(errors);
  });

  test("rendering replaces references and reports or keeps what it cannot resolve", () => {
    const { parts } = parseTemplate("PR {{ env.PR }}: {{ steps.r.outputs.f }} / {{ env.NOPE }}");
    const values = {
      env: (n: string) => ({ PR: "42" })[n],
      output: (s: string, k: string) => (s === "r" && k === "f" ? "findings\nline 2" : undefined),
    };
    expect(renderTemplate(parts, values)).toEqual({
      text: "PR 42: findings\nline 2 / ",
      missing: [{ kind: "env", name: "NOPE", text: "{{ env.NOPE }}" }],
    });
    expect(renderTemplate(parts, values, true).text).toBe("PR 42: findings\nline 2 / {{ env.NOPE }}");
  });

  test("a value is inserted verbatim, never re-expanded", () => {
    const { parts } = parseTemplate("{{ env.A }}");
    expect(renderTemplate(parts, { env: () => "{{ env.B }}", output: () => undefined }).text).toBe(
      "{{ env.B }}",
    );
  });
});

function problems(text: string): string[] {
  try {
    loadWorkflow(text, "wf.yaml");
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const lines = (error as Error).message.split("\n");
    return lines.length === 1 ? lines : lines.slice(1);
  }
}

const wf = (steps: string) => `workers: { a: {} }\nsteps:\n${steps}`;

describe("references to step outputs", () => {
  test("a direct or transitive need may be referenced", () => {
    const text = wf(`  - { id: a1, run: a, prompt: p, outputs: { k: answer } }
  - { id: a2, run: a, prompt: p, needs: [a1] }
  - { id: a3, run: a, prompt: "{{ steps.a1.outputs.k }}", needs: [a2] }
`);
    expect(problems(text)).toEqual([]);
  });

  test.each([
    [
      "a step not in needs",
      `  - { id: a1, run: a, prompt: p, outputs: { k: answer } }
  - { id: a2, run: a, prompt: "use {{ steps.a1.outputs.k }}" }
`,
      'wf.yaml:4:36: steps[1].prompt: {{ steps.a1.outputs.k }}: step "a1" is not in needs (directly or transitively); add it to needs',
    ],
    [
      "an unknown step",
      `  - { id: a1, run: a, prompt: "{{ steps.zz.outputs.k }}" }
`,
      'wf.yaml:3:32: steps[0].prompt: {{ steps.zz.outputs.k }}: no step "zz"',
    ],
    [
      "an undeclared output",
      `  - { id: a1, run: a, prompt: p, outputs: { k: answer } }
  - { id: a2, run: a, prompt: "{{ steps.a1.outputs.kk }}", needs: [a1] }
`,
      'wf.yaml:4:32: steps[1].prompt: {{ steps.a1.outputs.kk }}: step "a1" has no output "kk" (it has: k)',
    ],
    [
      "its own outputs",
      `  - { id: a1, run: a, prompt: "{{ steps.a1.outputs.k }}", outputs: { k: answer } }
`,
      "wf.yaml:3:32: steps[0].prompt: {{ steps.a1.outputs.k }}: a step cannot use its own outputs",
    ],
    [
      "an unsupported template inside a block scalar",
      `  - id: a1
    run: a
    prompt: |
      line one
      then {{ secrets.X }}
`,
      "wf.yaml:7:12: steps[0].prompt: unsupported template {{ secrets.X }}: use {{ env.NAME }} or {{ steps.ID.outputs.KEY }}",
    ],
  ])("%s is an error at the reference", (_what, steps, expected) => {
    expect(problems(wf(steps))).toEqual([expected]);
  });
});

describe("checkEnvironment", () => {
  test("every {{ env.X }} and {fromEnv: X} must be set (an empty value counts as set)", () => {
    const loaded = loadWorkflow(
      `workers:
  a: { env: { T: { fromEnv: TOKEN }, M: fast } }
steps:
  - { id: s, run: a, prompt: "{{ env.PR }} {{ env.EMPTY }}" }
`,
      "wf.yaml",
    );
    expect(checkEnvironment(loaded.workflow, { EMPTY: "" })).toEqual([
      {
        path: ["steps", 0, "prompt"],
        needle: "{{ env.PR }}",
        message: "{{ env.PR }}: PR is not set in umbel's environment",
      },
      { path: ["workers", "a", "env", "T"], message: "TOKEN is not set in umbel's environment" },
    ]);
    expect(checkEnvironment(loaded.workflow, { EMPTY: "", PR: "1", TOKEN: "t" })).toEqual([]);
  });
});

test("a prompt of 100,000 unclosed {{ is one error, found in one pass", () => {
  // The first parser tried a lazy regex from every {{ to the end: quadratic, minutes for this.
  const parsed = parseTemplate(`${"{{".repeat(100_000)} {{ env.X }`);
  expect(parsed.refs).toEqual([]);
  expect(parsed.errors.map((e) => e.text)).toEqual(["{{"]);
  const mixed = parseTemplate(`a {{ env.X }} ${"{".repeat(100_000)}`);
  expect(mixed.refs).toHaveLength(1);
  expect(mixed.errors).toHaveLength(1);
});
