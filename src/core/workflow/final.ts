import { resolve } from "node:path";
import { resolveWorkerCwd } from "./describe.ts";
import type { Workflow } from "./schema.ts";

/**
 * The outputs a run exists for: those of its final steps (no other step needs them). `umbel run`
 * prints them after a successful run, answers in full and files by path; `--json` carries all.
 */
export type FinalOutput =
  | { step: string; output: string; kind: "answer" }
  | { step: string; output: string; kind: "file"; path: string };

export function finalOutputs(workflow: Workflow, baseDir: string): FinalOutput[] {
  const needed = new Set(workflow.steps.flatMap((s) => s.needs ?? []));
  return workflow.steps
    .filter((s) => !needed.has(s.id))
    .flatMap((s) =>
      Object.entries(s.outputs ?? {}).map(([output, spec]): FinalOutput => {
        if (spec === "answer") return { step: s.id, output, kind: "answer" };
        const cwd = resolveWorkerCwd(baseDir, workflow.workers[s.run]?.cwd);
        return { step: s.id, output, kind: "file", path: resolve(cwd, spec.slice("file:".length)) };
      }),
    );
}
