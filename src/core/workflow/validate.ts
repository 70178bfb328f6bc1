import { orphanGuardField } from "../guard/fields.ts";
import { fromZodIssues } from "./issues.ts";
import { ancestorsOf, findCycle, type Plan, planWorkflow } from "./plan.ts";
import {
  parseYamlSource,
  positionIssues,
  type SourceMap,
  type WorkflowIssue,
  workflowError,
} from "./positions.ts";
import { Workflow } from "./schema.ts";
import { parseTemplate } from "./template.ts";

export type LoadedWorkflow = {
  readonly workflow: Workflow;
  readonly plan: Plan;
  /** How errors name the file (the path as given). */
  readonly file: string;
  readonly source: SourceMap;
};

/**
 * Text → a valid, planned workflow, or one UsageError listing every problem as file:line:col.
 * Order: YAML syntax, then the schema, then what the schema cannot say (references, cycles, templates).
 */
export function loadWorkflow(text: string, file: string): LoadedWorkflow {
  const parsed = parseYamlSource(text);
  if (parsed.errors.length > 0) throw workflowError(file, parsed.errors);
  const result = Workflow.safeParse(parsed.value);
  if (!result.success) {
    throw workflowError(
      file,
      positionIssues(parsed.source, fromZodIssues(result.error.issues, parsed.value)),
    );
  }
  const loaded = { workflow: result.data, file, source: parsed.source };
  throwIssues(loaded, checkWorkflow(result.data));
  return { ...loaded, plan: planWorkflow(result.data.steps) };
}

/** Throws a positioned UsageError when there are issues. */
export function throwIssues(
  loaded: Pick<LoadedWorkflow, "file" | "source">,
  issues: readonly WorkflowIssue[],
): void {
  if (issues.length > 0) throw workflowError(loaded.file, positionIssues(loaded.source, issues));
}

function checkWorkflow(wf: Workflow): WorkflowIssue[] {
  const issues: WorkflowIssue[] = [];
  const workers = Object.keys(wf.workers);
  const firstIndex = new Map<string, number>();
  wf.steps.forEach((step, i) => {
    const seen = firstIndex.get(step.id);
    if (seen === undefined) firstIndex.set(step.id, i);
    else
      issues.push({
        path: ["steps", i, "id"],
        message: `duplicate step id ${JSON.stringify(step.id)} (also steps[${seen}])`,
      });
    const keys = {
      jsonSchema: "schema",
      accept: "accept",
      maxAttempts: "maxAttempts",
      acceptTimeout: "acceptTimeout",
    };
    const orphan = orphanGuardField({ ...step, jsonSchema: step.schema }, keys);
    if (orphan) issues.push({ path: ["steps", i, keys[orphan.field]], message: orphan.message });
    for (const [key, spec] of Object.entries(step.outputs ?? {}))
      if (spec.startsWith("structured") && step.schema === undefined)
        issues.push({
          path: ["steps", i, "outputs", key],
          message: `output ${JSON.stringify(key)} is ${spec}, but the step has no \`schema\``,
        });
    if (!(step.run in wf.workers)) {
      const known = workers.length > 0 ? `workers: ${workers.join(", ")}` : "`workers` is empty";
      issues.push({ path: ["steps", i, "run"], message: `no worker ${JSON.stringify(step.run)} (${known})` });
    }
  });
  let unknownNeeds = false;
  wf.steps.forEach((step, i) => {
    step.needs?.forEach((need, k) => {
      if (firstIndex.has(need)) return;
      unknownNeeds = true;
      issues.push({ path: ["steps", i, "needs", k], message: `no step ${JSON.stringify(need)}` });
    });
  });
  const cycle = findCycle(wf.steps);
  if (cycle) {
    const [from, to] = cycle;
    const i = firstIndex.get(from ?? "") ?? 0;
    const k = wf.steps[i]?.needs?.indexOf(to ?? "") ?? 0;
    issues.push({
      path: ["steps", i, "needs", k],
      message: `cycle: ${cycle.join(" → ")} (each needs the next)`,
    });
  }
  issues.push(...checkTemplates(wf, firstIndex, !unknownNeeds && !cycle));
  return issues;
}

/** Template syntax always; references only once `needs` is sound (ancestry means nothing otherwise). */
function checkTemplates(wf: Workflow, index: Map<string, number>, checkRefs: boolean): WorkflowIssue[] {
  const issues: WorkflowIssue[] = [];
  wf.steps.forEach((step, i) => {
    const path = ["steps", i, "prompt"];
    const parsed = parseTemplate(step.prompt);
    for (const e of parsed.errors) issues.push({ path, message: e.message, needle: e.text });
    if (!checkRefs) return;
    const ancestors = ancestorsOf(wf.steps, step.id);
    for (const ref of parsed.refs) {
      if (ref.kind !== "output") continue;
      const target = wf.steps[index.get(ref.step) ?? -1];
      const message = !target
        ? `${ref.text}: no step ${JSON.stringify(ref.step)}`
        : ref.step === step.id
          ? `${ref.text}: a step cannot use its own outputs`
          : !ancestors.has(ref.step)
            ? `${ref.text}: step ${JSON.stringify(ref.step)} is not in needs (directly or transitively); add it to needs`
            : !(ref.key in (target.outputs ?? {}))
              ? `${ref.text}: step ${JSON.stringify(ref.step)} has no output ${JSON.stringify(ref.key)} (${describeOutputs(target.outputs)})`
              : null;
      if (message) issues.push({ path, message, needle: ref.text });
    }
  });
  return issues;
}

function describeOutputs(outputs: Record<string, string> | undefined): string {
  const keys = Object.keys(outputs ?? {});
  return keys.length > 0 ? `it has: ${keys.join(", ")}` : "it declares no outputs";
}

/** What the run needs from umbel's environment: every {{ env.X }} and every {fromEnv: X} set. */
export function checkEnvironment(
  wf: Workflow,
  env: Readonly<Record<string, string | undefined>>,
): WorkflowIssue[] {
  const issues: WorkflowIssue[] = [];
  wf.steps.forEach((step, i) => {
    for (const ref of parseTemplate(step.prompt).refs) {
      if (ref.kind === "env" && env[ref.name] === undefined)
        issues.push({
          path: ["steps", i, "prompt"],
          needle: ref.text,
          message: `${ref.text}: ${ref.name} is not set in umbel's environment`,
        });
    }
  });
  for (const [key, worker] of Object.entries(wf.workers)) {
    for (const [name, value] of Object.entries(worker.env ?? {})) {
      if (typeof value !== "string" && env[value.fromEnv] === undefined)
        issues.push({
          path: ["workers", key, "env", name],
          message: `${value.fromEnv} is not set in umbel's environment`,
        });
    }
  }
  return issues;
}
