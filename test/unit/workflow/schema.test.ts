import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../../../src/core/errors.ts";
import { RunWorkflowInput, workflowJsonSchema } from "../../../src/core/workflow/schema.ts";
import { loadWorkflow } from "../../../src/core/workflow/validate.ts";

/** Loads `text` and returns the UsageError's lines (file:line:col: path: message), or [] if valid. */
function problems(text: string): string[] {
  try {
    loadWorkflow(text, "wf.yaml");
    return [];
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const e = error as UsageError;
    expect(e.code).toBe("usage");
    expect(e.exitCode).toBe(2);
    const lines = e.message.split("\n");
    return lines.length === 1 ? lines : lines.slice(1);
  }
}

const VALID = `workers:
  reviewer: { provider: claude, model: sonnet, cwd: ./review, unattended: true }
  fixer:    { cwd: ./fix, env: { TOKEN: { fromEnv: FIX_TOKEN }, MODE: fast }, allowedTools: [Edit] }
steps:
  - id: review
    run: reviewer
    prompt: "Review PR {{ env.PR }} and write the findings to review.md"
    timeout: 10m
    outputs: { findings: file:review.md, summary: answer }
  - id: fix
    run: fixer
    needs: [review]
    idleTimeout: 90s
    fresh: true
    prompt: |
      Apply these findings:
      {{ steps.review.outputs.findings }}
`;

describe("a valid workflow", () => {
  test("parses, with durations in ms, defaults filled and the spawn fields kept", () => {
    const { workflow, plan } = loadWorkflow(VALID, "wf.yaml");
    expect(workflow.workers.reviewer).toEqual({
      provider: "claude",
      model: "sonnet",
      cwd: "./review",
      unattended: true,
    });
    expect(workflow.workers.fixer?.env).toEqual({ TOKEN: { fromEnv: "FIX_TOKEN" }, MODE: "fast" });
    expect(workflow.steps[0]?.timeout).toBe(600_000);
    expect(workflow.steps[1]).toMatchObject({ idleTimeout: 90_000, fresh: true, needs: ["review"] });
    expect(plan.waves).toEqual([["review"], ["fix"]]);
  });
});

describe("guardrails on a step", () => {
  test("schema (a map, JSON text or a file), accept (one command or a list), and their limits", () => {
    const text = `workers: { a: {} }
steps:
  - id: plan
    run: a
    prompt: plan it
    schema: { type: object, properties: { plan: { type: string } }, required: [plan] }
    outputs: { plan: structured.plan, all: structured }
  - id: build
    run: a
    needs: [plan]
    prompt: "build {{ steps.plan.outputs.plan }}"
    accept: npm test
    maxAttempts: 5
    acceptTimeout: 2m
  - id: lint
    run: a
    needs: [build]
    prompt: lint
    schema: schema.json
    accept: [make lint, make types]
`;
    const { workflow } = loadWorkflow(text, "wf.yaml");
    expect(workflow.steps[0]?.schema).toEqual({
      type: "object",
      properties: { plan: { type: "string" } },
      required: ["plan"],
    });
    expect(workflow.steps[1]).toMatchObject({ accept: ["npm test"], maxAttempts: 5, acceptTimeout: 120_000 });
    expect(workflow.steps[2]).toMatchObject({ schema: "schema.json", accept: ["make lint", "make types"] });
  });
});

describe("errors name file:line:col and the key", () => {
  test.each([
    [
      "a typo'd worker key",
      "workers:\n  a: { modle: x }\nsteps: [{ id: s, run: a, prompt: p }]\n",
      ['wf.yaml:2:8: workers.a.modle: unknown key "modle" — did you mean "model"?'],
    ],
    [
      "a kebab-case key (keys are camelCase)",
      "workers: { a: {} }\nsteps:\n  - id: s\n    run: a\n    prompt: p\n    idle-timeout: 5s\n",
      ['wf.yaml:6:5: steps[0].idle-timeout: unknown key "idle-timeout" — did you mean "idleTimeout"?'],
    ],
    [
      "an unknown top-level key",
      "workers: { a: {} }\nsteps: [{ id: s, run: a, prompt: p }]\njobs: 1\n",
      ['wf.yaml:3:1: jobs: unknown key "jobs" (known keys: workers, steps)'],
    ],
    [
      "a missing prompt",
      "workers: { a: {} }\nsteps:\n  - id: s\n    run: a\n",
      ['wf.yaml:3:5: steps[0].prompt: missing key "prompt"'],
    ],
    [
      "a bad duration",
      "workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: p, timeout: soon }\n",
      ['wf.yaml:3:42: steps[0].timeout: not a duration: "soon" (try 90s, 10m, 1h)'],
    ],
    [
      "a bad output spec",
      "workers: { a: {} }\nsteps:\n  - id: s\n    run: a\n    prompt: p\n    outputs: { x: stdout }\n",
      ["wf.yaml:6:19: steps[0].outputs.x: an output is `answer`, `file:PATH` or `structured[.PATH]`"],
    ],
    [
      "a structured output on a step without a schema",
      "workers: { a: {} }\nsteps:\n  - id: s\n    run: a\n    prompt: p\n    outputs: { x: structured.n }\n",
      ['wf.yaml:6:19: steps[0].outputs.x: output "x" is structured.n, but the step has no `schema`'],
    ],
    [
      "a limit without the guardrail it bounds",
      "workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: p, maxAttempts: 2 }\n",
      ["wf.yaml:3:46: steps[0].maxAttempts: maxAttempts needs accept or schema"],
    ],
    [
      "an empty accept check",
      'workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: p, accept: [""] }\n',
      [expect.stringMatching(/^wf\.yaml:3:\d+: steps\[0\]\.accept/)],
    ],
    [
      "a bad worker name",
      "workers: { Big_Name: {} }\nsteps: [{ id: s, run: a, prompt: p }]\n",
      [expect.stringMatching(/^wf\.yaml:1:12: workers\.Big_Name: bad name "Big_Name": a worker key is/)],
    ],
    [
      "an env value that is neither a string nor {fromEnv}",
      "workers:\n  a: { env: { X: [1] } }\nsteps: [{ id: s, run: a, prompt: p }]\n",
      ["wf.yaml:2:18: workers.a.env.X: expected a string or {fromEnv: NAME}"],
    ],
    [
      "an unknown worker in run",
      "workers: { a: {} }\nsteps:\n  - { id: s, run: b, prompt: p }\n",
      ['wf.yaml:3:19: steps[0].run: no worker "b" (workers: a)'],
    ],
    [
      "an unknown step in needs",
      "workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: p, needs: [t] }\n",
      ['wf.yaml:3:41: steps[0].needs[0]: no step "t"'],
    ],
    [
      "a duplicate step id",
      "workers: { a: {} }\nsteps:\n  - { id: s, run: a, prompt: p }\n  - { id: s, run: a, prompt: q }\n",
      ['wf.yaml:4:11: steps[1].id: duplicate step id "s" (also steps[0])'],
    ],
    [
      "a YAML syntax error",
      "workers: { a: {} }\nsteps:\n  - id: s\n   run: a\n",
      [expect.stringMatching(/^wf\.yaml:4:\d+: /)],
    ],
    [
      "a duplicate YAML key",
      "workers: { a: {} }\nsteps: []\nsteps: []\n",
      [expect.stringMatching(/^wf\.yaml:3:1: .*unique/i)],
    ],
    ...["", "\n\n", "# only a comment\n", "---\n"].map((text): [string, string, string[]] => [
      `an empty file (${JSON.stringify(text)})`,
      text,
      [
        "wf.yaml:1:1: not a umbel workflow: the file is empty (no YAML value, only blank lines or comments); a workflow is a mapping with `workers` and `steps` (docs/workflows.md)",
      ],
    ]),
    [
      "a file that is only null",
      "~\n",
      [
        "wf.yaml:1:1: not a umbel workflow: the top level is null; a workflow is a mapping with `workers` and `steps` (docs/workflows.md)",
      ],
    ],
    [
      "no steps",
      "workers: { a: {} }\nsteps: []\n",
      ["wf.yaml:2:8: steps: a workflow needs at least one step"],
    ],
  ])("%s", (_what, text, expected) => {
    expect(problems(text)).toEqual(expected);
  });

  test("every problem is reported at once, in file order, with the issues as data", () => {
    const text = "workers:\n  a: { bogus: 1 }\nsteps:\n  - { id: s, run: a, prompt: p, extra: 2 }\n";
    let error: UsageError | undefined;
    try {
      loadWorkflow(text, "wf.yaml");
    } catch (e) {
      error = e as UsageError;
    }
    expect(error?.message.split("\n")[0]).toBe("wf.yaml is not valid (2 problems)");
    expect(error?.data.issues).toEqual([
      {
        file: "wf.yaml",
        line: 2,
        col: 8,
        path: "workers.a.bogus",
        message: expect.stringContaining("bogus"),
      },
      {
        file: "wf.yaml",
        line: 4,
        col: 33,
        path: "steps[0].extra",
        message: expect.stringContaining("extra"),
      },
    ]);
  });
});

describe("the JSON Schema and the run input", () => {
  test("--schema is generated from the zod schema and rejects unknown keys", () => {
    const schema = workflowJsonSchema() as {
      title: string;
      additionalProperties: boolean;
      properties: {
        steps: { items: { properties: Record<string, unknown>; additionalProperties: boolean } };
      };
    };
    expect(schema.title).toBe("umbel workflow");
    expect(schema.additionalProperties).toBe(false);
    expect(Object.keys(schema.properties.steps.items.properties)).toEqual([
      "id",
      "run",
      "prompt",
      "needs",
      "timeout",
      "idleTimeout",
      "outputs",
      "fresh",
      "schema",
      "accept",
      "maxAttempts",
      "acceptTimeout",
      "maxTokens",
    ]);
    expect(schema.properties.steps.items.additionalProperties).toBe(false);
  });

  test.each([
    [{ file: "wf.yaml" }, true],
    [{ resume: "20250101-120000-a1b2c3", maxParallel: 2 }, true],
    [{ file: "wf.yaml", resume: "20250101-120000-a1b2c3" }, false],
    [{}, false],
    [{ resume: "../../etc" }, false],
    [{ file: "wf.yaml", maxParallel: 0 }, false],
  ])("RunWorkflowInput %p → %p", (input, ok) => {
    expect(RunWorkflowInput.safeParse(input).success).toBe(ok);
  });
});

const EXAMPLES = join(import.meta.dir, "..", "..", "..", "examples");
test.each(readdirSync(EXAMPLES).filter((f) => f.endsWith(".yaml")))("examples/%s is valid", (name) => {
  expect(problems(readFileSync(join(EXAMPLES, name), "utf8"))).toEqual([]);
});

test("YAML merge keys let workers share settings", () => {
  const text =
    "workers:\n  a: &base { model: sonnet }\n  b: { <<: *base, cwd: ./b }\nsteps: [{ id: s, run: b, prompt: p }]\n";
  expect(loadWorkflow(text, "wf.yaml").workflow.workers.b).toEqual({
    model: "sonnet",
    cwd: "./b",
  });
});

describe("a file output is a path inside the worker's cwd", () => {
  const withOutput = (spec: string) =>
    `workers: { a: {} }\nsteps:\n  - id: s\n    run: a\n    prompt: p\n    outputs: { o: "${spec}" }\n`;

  test.each([
    "file:../../../../etc/hostname",
    "file:/etc/hostname",
    "file:notes/../../x.md",
    "file:.",
    "file:a/..",
  ])("%s is refused where it is written", (spec) => {
    expect(problems(withOutput(spec))).toEqual([
      `wf.yaml:6:19: steps[0].outputs.o: ${spec} is not inside the worker's cwd; a file output is a relative path to a file in it`,
    ]);
  });

  test.each(["file:notes.md", "file:./out/notes.md", "file:a/../b.md", "file:.umbel-review.md"])(
    "%s is fine",
    (spec) => {
      expect(problems(withOutput(spec))).toEqual([]);
    },
  );
});
