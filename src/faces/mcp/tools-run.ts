import { RunWorkflowInput, RunWorkflowOutput } from "../../core/workflow/schema.ts";
import { defineTool, type UmbelTool } from "./tool.ts";

/**
 * `umbel run` over MCP: the same runner and schema as the CLI. A client's cancel stops the run like
 * Ctrl-C (every worker killed, the state recorded, resumable with `resume`).
 */
export const runTool: UmbelTool = defineTool({
  name: "umbel_run",
  title: "Run a workflow file",
  input: RunWorkflowInput,
  output: RunWorkflowOutput,
  // It spawns workers that act (and kills them at the end); not idempotent: a second call runs again.
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
  run: async (input, { deps, report }) => {
    // Loaded at the first call: the runner brings the YAML parser, which no other tool needs
    // (the MCP face's start-up; docs/performance.md).
    const [{ runWorkflow }, { createRunProgress, renderFailure, renderPlan, renderSummary }] =
      await Promise.all([import("../../operations/workflow/run.ts"), import("../workflow/render.ts")]);
    const progress = createRunProgress();
    const result = await runWorkflow(deps, input, (event) => {
      const p = progress(event);
      if (p && report) report(p);
    });
    if (result.dryRun) return { data: result, text: renderPlan(result) };
    return {
      data: result,
      text: renderSummary(result) + (result.failure ? renderFailure(result.failure) : ""),
    };
  },
});
