import { isAbsolute, resolve } from "node:path";
import type { ProviderId } from "../schemas.ts";
import type { Plan } from "./plan.ts";
import type { Workflow } from "./schema.ts";
import { parseTemplate, renderTemplate } from "./template.ts";

/** The plan as `--dry-run` and MCP `umbel_run {dryRun: true}` return it. */
export type WorkflowPlan = {
  dryRun: true;
  exitCode: 0;
  file: string;
  /** Set when the plan is for a resume. */
  resume?: { runId: string; reused: string[] };
  workers: Record<string, PlannedWorker>;
  waves: PlannedStep[][];
};

type PlannedWorker = {
  /** The host of config.toml it runs on (absent: this machine). */
  host?: string;
  /** A host worker's own (none given: HOST_DEFAULT, the host's umbel resolves it). */
  provider: string;
  model?: string;
  cwd: string;
  unattended?: boolean;
  permissionMode?: string;
  allowedTools?: string[];
  /** Names only: values are never shown. */
  env: string[];
  steps: string[];
};

type PlannedStep = {
  id: string;
  worker: string;
  needs: string[];
  /** Also the previous step on the same worker. */
  waitsFor: string[];
  fresh: boolean;
  /** env references resolved, step outputs resolved when known (a resume), else left as written. */
  prompt: string;
  unresolved: string[];
  outputs: Record<string, string>;
  timeoutMs?: number;
  idleTimeoutMs?: number;
  /** The step's guardrails: a schema to return an object for, and accept checks. */
  schema?: true;
  accept?: string[];
  maxAttempts?: number;
  reused?: boolean;
};

/** A host worker's provider or cwd left out: the host's umbel resolves it, never this one. */
const HOST_DEFAULT = "the host's default";

/** A worker's cwd: absolute as given, relative to the workflow file's folder, or that folder. */
export function resolveWorkerCwd(baseDir: string, cwd: string | undefined): string {
  if (cwd === undefined) return baseDir;
  return isAbsolute(cwd) ? cwd : resolve(baseDir, cwd);
}

export function describePlan(args: {
  workflow: Workflow;
  plan: Plan;
  file: string;
  baseDir: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The provider of a worker that names none (resolved by the caller: core/worker/default-provider.ts). */
  defaultProvider: ProviderId;
  reused?: Readonly<Record<string, Record<string, string>>>;
  resumeOf?: string;
}): WorkflowPlan {
  const { workflow, plan, reused = {} } = args;
  const byId = new Map(workflow.steps.map((s) => [s.id, s]));
  const workers: Record<string, PlannedWorker> = {};
  for (const [key, w] of Object.entries(workflow.workers)) {
    const onHost = w.host !== undefined;
    workers[key] = {
      ...(w.host === undefined ? {} : { host: w.host }),
      provider: w.provider ?? (onHost ? HOST_DEFAULT : args.defaultProvider),
      ...(w.model ? { model: w.model } : {}),
      cwd: onHost ? (w.cwd ?? HOST_DEFAULT) : resolveWorkerCwd(args.baseDir, w.cwd),
      ...(w.unattended ? { unattended: true } : {}),
      ...(w.permissionMode ? { permissionMode: w.permissionMode } : {}),
      ...(w.allowedTools ? { allowedTools: w.allowedTools } : {}),
      env: Object.keys(w.env ?? {}),
      steps: plan.workers[key] ?? [],
    };
  }
  const waves = plan.waves.map((wave) =>
    wave.flatMap((id): PlannedStep[] => {
      const step = byId.get(id);
      if (!step) return [];
      const rendered = renderTemplate(
        parseTemplate(step.prompt).parts,
        { env: (name) => args.env[name], output: (s, k) => reused[s]?.[k] },
        true,
      );
      return [
        {
          id,
          worker: step.run,
          needs: step.needs ?? [],
          waitsFor: plan.waitsFor[id] ?? [],
          fresh: step.fresh === true,
          prompt: rendered.text,
          unresolved: rendered.missing.map((m) => m.text),
          outputs: step.outputs ?? {},
          ...(step.timeout === undefined ? {} : { timeoutMs: step.timeout }),
          ...(step.idleTimeout === undefined ? {} : { idleTimeoutMs: step.idleTimeout }),
          ...(step.schema === undefined ? {} : { schema: true as const }),
          ...(step.accept === undefined ? {} : { accept: step.accept }),
          ...(step.maxAttempts === undefined ? {} : { maxAttempts: step.maxAttempts }),
          ...(id in reused ? { reused: true } : {}),
        },
      ];
    }),
  );
  return {
    dryRun: true,
    exitCode: 0,
    file: args.file,
    ...(args.resumeOf ? { resume: { runId: args.resumeOf, reused: Object.keys(reused) } } : {}),
    workers,
    waves,
  };
}
