import { describe, expect, test } from "bun:test";
import { EXIT, toExitCode, UsageError } from "../../../src/core/errors.ts";
import { WORKFLOW_LIMITS } from "../../../src/core/workflow/bounds.ts";
import { loadWorkflow } from "../../../src/core/workflow/validate.ts";

/**
 * The probes of issue 11 (item 13 and 18): files that made `umbel run` exit 70, overflow the stack
 * or echo a file that is not a workflow. Each must be one positioned usage error (exit 2).
 */

function failure(text: string): UsageError {
  try {
    loadWorkflow(text, "wf.yaml");
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    expect(toExitCode(error)).toBe(EXIT.usage);
    return error as UsageError;
  }
  throw new Error("expected the file to be refused");
}

/** The problem lines: the one line, or the lines after the header. */
function problems(text: string): string[] {
  const lines = failure(text).message.split("\n");
  for (const line of lines.slice(lines.length === 1 ? 0 : 1))
    expect(line).toMatch(/^wf\.yaml:\d+:\d+: |^… and \d+ more problems? not shown$/);
  return lines.length === 1 ? lines : lines.slice(1);
}

/** Files of 10,000 steps take ~1 s to parse, several on a loaded CI machine. */
const HEAVY = 60_000;
const STEP = "steps: [{ id: s, run: a, prompt: p }]\n";
const laughs = (open: string, close: string, items: (ref: string) => string) => {
  let text = `workers:\n  a: {}\n  l0: &l0 ${open}${items("x")}${close}\n`;
  for (let i = 1; i < 10; i++) text += `  l${i}: &l${i} ${open}${items(`*l${i - 1}`)}${close}\n`;
  return text + STEP;
};

describe("YAML that used to exit 70", () => {
  test.each([
    ["a merge from a scalar", `workers:\n  a: { <<: 5 }\n${STEP}`, "wf.yaml:2:12: workers.a.<<: "],
    ["a merge from a list holding a scalar", `workers:\n  a: { <<: [x] }\n${STEP}`, "wf.yaml:2:13: "],
    ["an alias with no anchor", `workers:\n  a: *nope\n${STEP}`, "wf.yaml:2:6: workers.a: "],
    ["an alias inside its own anchor", `workers:\n  a: &me { x: *me }\n${STEP}`, "wf.yaml:2:15: "],
  ])("%s", (_what, text, start) => {
    const lines = problems(text);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toStartWith(start);
  });

  test("merge messages say what a merge takes; alias messages name the anchor", () => {
    expect(problems(`workers:\n  a: { <<: 5 }\n${STEP}`)[0]).toContain("a merge (<<) takes a map");
    expect(problems(`workers:\n  a: *nope\n${STEP}`)[0]).toContain("*nope");
  });

  test.each([
    ["a list bomb", laughs("[", "]", (r) => Array(9).fill(r).join(", "))],
    ["a map bomb", laughs("{", "}", (r) => Array.from({ length: 9 }, (_, i) => `k${i}: ${r}`).join(", "))],
    [
      "a merge bomb",
      laughs("{", "}", (r) => (r === "x" ? "k: x" : `<<: [${Array(9).fill(r).join(", ")}], k${r.length}: 1`)),
    ],
  ])("%s is refused before it expands", (_what, text) => {
    const lines = problems(text);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^wf\.yaml:\d+:\d+: .*aliases .*more than 10000 nodes/);
  });

  test("more aliases than the limit", () => {
    const aliases = Array.from({ length: WORKFLOW_LIMITS.aliases + 1 }, (_, i) => `  w${i}: *b\n`).join("");
    const lines = problems(`workers:\n  a: &b {}\n${aliases}${STEP}`);
    expect(lines).toEqual([
      `wf.yaml:${WORKFLOW_LIMITS.aliases + 3}:9: workers.w${WORKFLOW_LIMITS.aliases}: more than ${WORKFLOW_LIMITS.aliases} aliases (docs/workflows.md#limits)`,
    ]);
  });
});

describe("nesting bombs are refused by depth, never by a stack overflow", () => {
  const deep = 20_000;
  test.each([
    ["flow lists", `workers: ${"[".repeat(deep)}${"]".repeat(deep)}\n${STEP}`],
    ["flow maps", `workers: ${"{a: ".repeat(deep)}1${"}".repeat(deep)}\n${STEP}`],
    ["compact block lists", `workers:\n  a: {}\nsteps:\n  - ${"- ".repeat(deep)}x\n`],
    ["explicit keys", `workers:\n  a: {}\nsteps:\n  - ${"? ".repeat(deep)}x\n`],
    [
      "indentation",
      `workers:\n  a: {}\nsteps:\n${Array.from({ length: 200 }, (_, i) => `${" ".repeat(2 * i + 2)}- k:`).join("\n")} x\n`,
    ],
  ])("%s", (_what, text) => {
    const lines = problems(text);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      new RegExp(`^wf\\.yaml:\\d+:\\d+: .*nested deeper than ${WORKFLOW_LIMITS.depth} levels`),
    );
    expect(lines[0]).not.toContain("call stack");
  });

  test("a workflow nested as deep as a real one is fine", () => {
    const text =
      "workers:\n  a: { env: { X: { fromEnv: Y } } }\nsteps:\n  - { id: s, run: a, prompt: p, needs: [] }\n";
    expect(loadWorkflow(text, "wf.yaml").workflow.steps).toHaveLength(1);
  });
});

describe("size and step limits are checked before any work", () => {
  const chain = (n: number, cyclic: boolean) => {
    let text = "workers: { w: {} }\nsteps:\n";
    for (let i = 0; i < n; i++)
      text += `  - { id: s${i}, run: w, prompt: p, needs: [s${i === 0 ? (cyclic ? n - 1 : "") : i - 1}] }\n`;
    return text.replace("needs: [s]", "needs: []");
  };

  test(
    "a 50,000-step cycle is refused by its size, before it is parsed",
    () => {
      expect(problems(chain(50_000, true))).toEqual([
        `wf.yaml:1:1: the file is larger than ${WORKFLOW_LIMITS.bytes} bytes, the limit for a workflow (docs/workflows.md#limits)`,
      ]);
    },
    HEAVY,
  );

  test(
    "one step over the limit is named at that step",
    () => {
      expect(problems(chain(WORKFLOW_LIMITS.steps + 1, true))).toEqual([
        `wf.yaml:${WORKFLOW_LIMITS.steps + 3}:5: steps[${WORKFLOW_LIMITS.steps}]: more than ${WORKFLOW_LIMITS.steps} steps (docs/workflows.md#limits)`,
      ]);
    },
    HEAVY,
  );

  test(
    "a cycle through every step at the limit is named without a stack overflow, and briefly",
    () => {
      const lines = problems(chain(WORKFLOW_LIMITS.steps, true));
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(
        /^wf\.yaml:3:\d+: steps\[0\]\.needs\[0\]: cycle: s0 → s9999 → s9998 → .* → s0 \(/,
      );
      expect(lines[0]?.length).toBeLessThan(300);
    },
    HEAVY,
  );

  test(
    "a 10,000-step chain is valid",
    () => {
      const { plan } = loadWorkflow(chain(WORKFLOW_LIMITS.steps, false), "wf.yaml");
      expect(plan.waves).toHaveLength(WORKFLOW_LIMITS.steps);
    },
    HEAVY,
  );

  test(
    "a map of 50,000 workers is read in one pass (the YAML package's duplicate-key check was quadratic)",
    () => {
      const workers = Array.from({ length: 50_000 }, (_, i) => `  w${i}: {}\n`).join("");
      const valid = loadWorkflow(`workers:\n${workers}${STEP.replace("run: a", "run: w1")}`, "wf.yaml");
      expect(Object.keys(valid.workflow.workers)).toHaveLength(50_000);
      expect(problems(`workers:\n${workers}  w7: {}\n${STEP}`)).toEqual([
        'wf.yaml:50002:3: workers.w7: duplicate key "w7": map keys must be unique',
      ]);
    },
    HEAVY,
  );

  test(
    "a file over the size limit is refused at 1:1",
    () => {
      const text = `workers: { a: {} }\n${STEP}# ${"x".repeat(WORKFLOW_LIMITS.bytes)}\n`;
      expect(problems(text)).toEqual([
        `wf.yaml:1:1: the file is larger than ${WORKFLOW_LIMITS.bytes} bytes, the limit for a workflow (docs/workflows.md#limits)`,
      ]);
    },
    HEAVY,
  );
});

describe("a file that is not a workflow is never echoed", () => {
  const SHADOW = `${Array.from({ length: 30 }, (_, i) => `user${i}:$6$saltsalt$${"h".repeat(80)}:19000:0:99999:7:::`).join("\n")}\n`;

  test.each([
    ["a shadow-like file", SHADOW, "the top level has neither `workers` nor `steps`"],
    ["a scalar", "hello there\n", "the top level is a string"],
    ["a list", "- a\n- b\n", "the top level is a list"],
    ["a number", "42\n", "the top level is a number"],
  ])("%s is refused in one line", (_what, text, reason) => {
    const lines = problems(text);
    expect(lines).toEqual([expect.stringMatching(/^wf\.yaml:1:1: not a umbel workflow: /)]);
    expect(lines[0]).toContain(reason);
    expect(lines[0]).not.toContain("saltsalt");
  });

  test("a typo'd top-level key is still a workflow with a hint", () => {
    expect(problems(`worker: { a: {} }\n${STEP.replace("steps", "step")}`)).toContain(
      'wf.yaml:1:1: worker: unknown key "worker" — did you mean "workers"?',
    );
  });

  test("a huge key or value is quoted as a short excerpt", () => {
    const key = "k".repeat(100_000);
    const message = failure(`workers: { a: { ${key}: 1 } }\n${STEP}`).message;
    // The excerpt and the list of a worker's known keys (spawn's fields, nonInteractive among them).
    expect(message.length).toBeLessThan(450);
    expect(message).not.toContain("k".repeat(81));
    const template = failure(`workers: { a: {} }\nsteps: [{ id: s, run: a, prompt: "{{ ${key} }}" }]\n`);
    expect(template.message).not.toContain("k".repeat(81));
  });

  test("hundreds of problems list the first few and count the rest", () => {
    const keys = Array.from({ length: 500 }, (_, i) => `  bogus${i}: 1\n`).join("");
    const error = failure(`workers:\n  a:\n${keys.replaceAll("  bogus", "    bogus")}${STEP}`);
    const lines = error.message.split("\n");
    expect(lines[0]).toBe(
      `wf.yaml is not valid (500 problems; the first ${WORKFLOW_LIMITS.problems} follow)`,
    );
    expect(lines).toHaveLength(WORKFLOW_LIMITS.problems + 2);
    expect(lines.at(-1)).toBe(`… and ${500 - WORKFLOW_LIMITS.problems} more problems not shown`);
    expect(error.data).toMatchObject({ total: 500 });
    expect(error.data.issues).toHaveLength(WORKFLOW_LIMITS.problems);
  });
});
