import { orphanGuardField } from "../guard/fields.ts";
import { unknownHost } from "../hosts/plan.ts";
import type { Hosts } from "../hosts/schema.ts";
import { clip, listSome, quote } from "./excerpt.ts";
import { fromZodIssues } from "./issues.ts";
import { outputPathProblem } from "./output-path.ts";
import { findCycle, type Plan, planWorkflow, type WorkMeter } from "./plan.ts";
import {
  parseYamlSource,
  positionIssues,
  type SourceMap,
  type WorkflowIssue,
  workflowError,
} from "./positions.ts";
import { createNeedsReach } from "./reach.ts";
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

export function checkWorkflow(wf: Workflow, work: WorkMeter = { count: 0 }): WorkflowIssue[] {
  const issues: WorkflowIssue[] = [];
  const workers = Object.keys(wf.workers);
  const firstIndex = new Map<string, number>();
  wf.steps.forEach((step, i) => {
    const seen = firstIndex.get(step.id);
    if (seen === undefined) firstIndex.set(step.id, i);
    else
      issues.push({
        path: ["steps", i, "id"],
        message: `duplicate step id ${quote(step.id)} (also steps[${seen}])`,
      });
    const keys = {
      jsonSchema: "schema",
      accept: "accept",
      maxAttempts: "maxAttempts",
      acceptTimeout: "acceptTimeout",
    };
    const orphan = orphanGuardField({ ...step, jsonSchema: step.schema }, keys);
    if (orphan) issues.push({ path: ["steps", i, keys[orphan.field]], message: orphan.message });
    const host = wf.workers[step.run]?.host;
    for (const [key, spec] of Object.entries(step.outputs ?? {})) {
      const problem = outputPathProblem(spec);
      if (problem) issues.push({ path: ["steps", i, "outputs", key], message: problem });
      // No verb reads a file of a host (one would read any file the host's user can), and the run's
      // outputs are read here: a host worker's results come back as its answer or structured object.
      else if (host !== undefined && spec.startsWith("file:"))
        issues.push({
          path: ["steps", i, "outputs", key],
          message: `${clip(spec)} is a file on host ${host} (worker ${step.run} runs there), which this umbel does not read: use answer, or structured with a schema`,
        });
      else if (spec.startsWith("structured") && step.schema === undefined)
        issues.push({
          path: ["steps", i, "outputs", key],
          message: `output ${quote(key)} is ${clip(spec)}, but the step has no \`schema\``,
        });
    }
    if (!(step.run in wf.workers)) {
      const known = workers.length > 0 ? `workers: ${listSome(workers)}` : "`workers` is empty";
      issues.push({ path: ["steps", i, "run"], message: `no worker ${quote(step.run)} (${known})` });
    }
  });
  for (const [key, worker] of Object.entries(wf.workers)) {
    // A host's path is never resolved here (against this machine's folders); "relative to what" has
    // no good answer there (the remote login's home? the umbel's folder?), so it is refused.
    if (worker.host !== undefined && worker.cwd !== undefined && !worker.cwd.startsWith("/"))
      issues.push({
        path: ["workers", key, "cwd"],
        message: `${clip(worker.cwd)} is relative, but worker ${key} runs on host ${worker.host}: its cwd is a path there, given absolute (or left out: the folder the host's umbel starts in)`,
      });
  }
  let unknownNeeds = false;
  wf.steps.forEach((step, i) => {
    step.needs?.forEach((need, k) => {
      if (firstIndex.has(need)) return;
      unknownNeeds = true;
      issues.push({ path: ["steps", i, "needs", k], message: `no step ${quote(need)}` });
    });
  });
  const cycle = findCycle(wf.steps, work);
  if (cycle) {
    const [from, to] = cycle;
    const i = firstIndex.get(from ?? "") ?? 0;
    const k = wf.steps[i]?.needs?.indexOf(to ?? "") ?? 0;
    issues.push({ path: ["steps", i, "needs", k], message: describeCycle(cycle) });
  }
  issues.push(...checkTemplates(wf, firstIndex, !unknownNeeds && !cycle, work));
  return issues;
}

/** `cycle: a → c → b → a (each needs the next)`; a long one shows its ends and how many steps. */
function describeCycle(cycle: readonly string[]): string {
  const steps = cycle.length - 1;
  const shown = cycle.length <= 9 ? cycle : [...cycle.slice(0, 4), "…", ...cycle.slice(-3)];
  return `cycle: ${shown.map((id) => (id === "…" ? id : clip(id))).join(" → ")} (${steps > 8 ? `${steps} steps; ` : ""}each needs the next)`;
}

/** Template syntax always; references only once `needs` is sound (ancestry means nothing otherwise). */
function checkTemplates(
  wf: Workflow,
  index: Map<string, number>,
  checkRefs: boolean,
  work: WorkMeter,
): WorkflowIssue[] {
  const issues: WorkflowIssue[] = [];
  const needs = checkRefs ? createNeedsReach(wf.steps, work) : null;
  wf.steps.forEach((step, i) => {
    const path = ["steps", i, "prompt"];
    const parsed = parseTemplate(step.prompt);
    for (const e of parsed.errors) issues.push({ path, message: e.message, needle: e.text });
    if (!needs) return;
    for (const ref of parsed.refs) {
      if (ref.kind !== "output") continue;
      const target = wf.steps[index.get(ref.step) ?? -1];
      const text = clip(ref.text);
      const message = !target
        ? `${text}: no step ${quote(ref.step)}`
        : ref.step === step.id
          ? `${text}: a step cannot use its own outputs`
          : !needs(step.id, ref.step)
            ? `${text}: step ${quote(ref.step)} is not in needs (directly or transitively); add it to needs`
            : !(ref.key in (target.outputs ?? {}))
              ? `${text}: step ${quote(ref.step)} has no output ${quote(ref.key)} (${describeOutputs(target.outputs)})`
              : null;
      if (message) issues.push({ path, message, needle: ref.text });
    }
  });
  return issues;
}

function describeOutputs(outputs: Record<string, string> | undefined): string {
  const keys = Object.keys(outputs ?? {});
  return keys.length > 0 ? `it has: ${listSome(keys)}` : "it declares no outputs";
}

/** Every worker's host is one of config.toml's (read by the caller), before anything is spawned. */
export function checkHosts(wf: Workflow, hosts: Hosts | undefined): WorkflowIssue[] {
  const issues: WorkflowIssue[] = [];
  for (const [key, worker] of Object.entries(wf.workers)) {
    const problem = worker.host === undefined ? null : unknownHost(hosts, worker.host);
    if (problem) issues.push({ path: ["workers", key, "host"], message: problem });
  }
  return issues;
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
          message: `${clip(ref.text)}: ${clip(ref.name)} is not set in umbel's environment`,
        });
    }
  });
  for (const [key, worker] of Object.entries(wf.workers)) {
    for (const [name, value] of Object.entries(worker.env ?? {})) {
      if (typeof value !== "string" && env[value.fromEnv] === undefined)
        issues.push({
          path: ["workers", key, "env", name],
          message: `${clip(value.fromEnv)} is not set in umbel's environment`,
        });
    }
  }
  return issues;
}
