import { describe, expect, test } from "bun:test";
import { finalOutputs } from "../../../src/core/workflow/final.ts";
import type { RunSummary } from "../../../src/core/workflow/state.ts";
import { loadWorkflow } from "../../../src/core/workflow/validate.ts";
import { renderSummary } from "../../../src/faces/workflow/render.ts";

/** What `umbel run` prints after a successful run: the final steps' outputs, not just "done". */

const HELLO = `workers:
  w: { cwd: sub }
steps:
  - { id: pick, run: w, prompt: pick, outputs: { animal: answer } }
  - id: poem
    run: w
    needs: [pick]
    prompt: "poem about {{ steps.pick.outputs.animal }}"
    outputs: { poem: answer, notes: "file:out/notes.md" }
  - { id: side, run: w, prompt: no outputs }
`;

describe("finalOutputs", () => {
  test("the outputs of steps no other step needs: answers by name, files by their absolute path", () => {
    const { workflow } = loadWorkflow(HELLO, "hello.yaml");
    expect(finalOutputs(workflow, "/flows")).toEqual([
      { step: "poem", output: "poem", kind: "answer" },
      { step: "poem", output: "notes", kind: "file", path: "/flows/sub/out/notes.md" },
    ]);
  });
});

describe("the summary of a successful run", () => {
  const summary: RunSummary = {
    event: "summary",
    dryRun: false,
    runId: "20250101-120000-a1b2c3",
    status: "done",
    exitCode: 0,
    elapsedMs: 12_300,
    stateDir: "/s",
    attempt: 1,
    steps: { pick: "done", poem: "done" },
    outputs: {
      pick: { animal: "otter" },
      poem: { poem: "An otter floats\nand dreams.", notes: "# notes\n" },
    },
    final: [
      { step: "poem", output: "poem", kind: "answer" },
      { step: "poem", output: "notes", kind: "file", path: "/flows/sub/out/notes.md" },
    ],
  };

  test("prints each final answer in full and each file by its path, after the summary", () => {
    expect(renderSummary(summary)).toBe(
      [
        "run 20250101-120000-a1b2c3 done: 2/2 steps done in 12.3s",
        "state: /s",
        "",
        "poem.poem:",
        "An otter floats",
        "and dreams.",
        "",
        "poem.notes: /flows/sub/out/notes.md",
        "",
      ].join("\n"),
    );
  });

  test("without final outputs it is the summary alone", () => {
    expect(renderSummary({ ...summary, final: [] })).toBe(
      "run 20250101-120000-a1b2c3 done: 2/2 steps done in 12.3s\nstate: /s\n",
    );
  });
});
