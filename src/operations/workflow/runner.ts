import { EXIT } from "../../core/errors.ts";
import type { Deps, RunStore } from "../../core/ports.ts";
import type { ProviderId } from "../../core/schemas.ts";
import { finalOutputs } from "../../core/workflow/final.ts";
import type { WorkerResumePlan } from "../../core/workflow/resume.ts";
import type { RunState, RunSummary, WorkflowEvent } from "../../core/workflow/state.ts";
import type { StepRecord, StepStatus } from "../../core/workflow/step-record.ts";
import { parseTemplate, renderTemplate } from "../../core/workflow/template.ts";
import type { LoadedWorkflow } from "../../core/workflow/validate.ts";
import { executeStep } from "./step.ts";
import { createWorkerPool, purgeQuietly } from "./workers.ts";

export type RunArgs = {
  deps: Deps;
  loaded: LoadedWorkflow;
  state: RunState;
  store: RunStore;
  runHex: string;
  maxParallel: number;
  /** Keep the workers' tombstones after a successful run (a failed run always keeps them). */
  keep: boolean;
  onEvent: (event: WorkflowEvent) => void;
  /** The provider of a worker whose YAML names none (operations/worker/user-config.ts loadDefaultProvider). */
  defaultProvider: ProviderId;
  /** A resume: what it does with each worker (core/workflow/resume.ts). */
  resume?: WorkerResumePlan;
};

/**
 * Starts every step whose needs (and previous step on its worker) are done, up to maxParallel, in
 * plan order. On the first failure, or on the caller's abort (SIGINT, MCP cancel), no new step
 * starts and the running ones are stopped; then every worker the run made is killed.
 */
export async function executeRun(args: RunArgs): Promise<RunSummary> {
  const { deps, loaded, state, store } = args;
  const { workflow, plan } = loaded;
  const started = deps.clock.now();
  const iso = () => new Date(deps.clock.now()).toISOString();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  deps.signal?.addEventListener("abort", onAbort, { once: true });
  if (deps.signal?.aborted) stop.abort();
  const stepDeps: Deps = { ...deps, signal: stop.signal };
  const byId = new Map(workflow.steps.map((s) => [s.id, s]));
  const outputs: Record<string, Record<string, string>> = {};
  for (const [id, record] of Object.entries(state.steps))
    if (record.status === "done") outputs[id] = record.outputs ?? {};

  const save = () => store.save({ ...state, updatedAt: iso() });
  const dialogs: NonNullable<RunSummary["dialogs"]> = [];
  const update = async (id: string, patch: Partial<StepRecord>) => {
    const record: StepRecord = { ...(state.steps[id] as StepRecord), ...patch };
    state.steps[id] = record;
    await save();
    args.onEvent({ event: "step", runId: state.runId, step: id, at: iso(), ...record });
  };
  const pool = createWorkerPool({
    workflow,
    baseDir: state.baseDir,
    runHex: args.runHex,
    defaultProvider: args.defaultProvider,
    sessionsSoFar: state.sessions.length,
    onSession: async (name, key) => {
      state.sessions.push(name);
      state.workers = { ...state.workers, [key]: name };
      await save();
    },
    // Trust is never given silently: each dialog a worker answered is an event, and in the summary.
    onDialogs: (spawned) => {
      for (const answered of spawned.dialogs) {
        const dialog = { session: spawned.name, provider: spawned.provider, ...answered };
        dialogs.push(dialog);
        args.onEvent({ event: "dialog", runId: state.runId, at: iso(), ...dialog });
      }
    },
    ...(args.resume ? { kept: args.resume.kept, resumeFrom: args.resume.resumeFrom } : {}),
  });
  // Sessions left running for a person: a step that ended on a prompt (answer it, then --resume).
  const waiting = new Set<string>();

  const runOne = async (id: string) => {
    const step = byId.get(id);
    if (!step) return;
    const t0 = deps.clock.now();
    await update(id, { status: "starting", startedAt: iso(), attempt: state.attempt });
    const { text: prompt } = renderTemplate(parseTemplate(step.prompt).parts, {
      env: (name) => deps.env[name],
      output: (s, k) => outputs[s]?.[k],
    });
    const result = await executeStep({
      deps: stepDeps,
      step,
      prompt,
      cwd: pool.cwdOf(step.run),
      baseDir: state.baseDir,
      acquire: () => pool.acquire(stepDeps, step.run, step.fresh === true),
      // A failed state write surfaces at the step's next update; never as an unhandled rejection.
      onRunning: (session, baseline) =>
        void update(id, { status: "running", session, baseline }).catch(() => undefined),
      turn: args.resume?.continueTurns[id]?.baseline,
    });
    const ended = { endedAt: iso(), elapsedMs: deps.clock.now() - t0 };
    if (result.ok) {
      outputs[id] = result.outputs;
      await update(id, {
        status: "done",
        session: result.session,
        outputs: result.outputs,
        ...(result.cut ? { cut: result.cut } : {}),
        ...ended,
      });
      return;
    }
    const failure = { step: id, worker: step.run, ...result.failure };
    const session = failure.session === null ? {} : { session: failure.session };
    // A turn that waits for a person keeps its worker, so that very turn can go on once answered.
    if (failure.outcome === "input" && failure.session !== null && !result.stopped) {
      waiting.add(failure.session);
      failure.message = waitingMessage(failure.message, failure.session, failure.evidence, state.runId);
    }
    if (result.stopped) {
      await update(id, { status: "stopped", ...session, ...ended });
      return;
    }
    state.failure ??= failure;
    stop.abort();
    await update(id, { status: "failed", ...session, failure, ...ended });
  };

  const status = (id: string): StepStatus => state.steps[id]?.status ?? "pending";
  args.onEvent({
    event: "run",
    runId: state.runId,
    file: loaded.file,
    stateDir: store.dir,
    attempt: state.attempt,
    at: iso(),
    steps: plan.order.map((id) => ({ id, worker: byId.get(id)?.run ?? "", status: status(id) })),
    ...(args.resume ? { resumed: args.resume.workers } : {}),
  });
  const running = new Map<string, Promise<void>>();
  try {
    for (;;) {
      for (const id of plan.order) {
        if (stop.signal.aborted || running.size >= args.maxParallel) break;
        if (status(id) !== "pending" || running.has(id)) continue;
        if (!(plan.waitsFor[id] ?? []).every((d) => status(d) === "done")) continue;
        running.set(
          id,
          runOne(id).finally(() => running.delete(id)),
        );
      }
      if (running.size === 0) break;
      await Promise.race(running.values());
    }
  } finally {
    await Promise.allSettled(running.values());
    deps.signal?.removeEventListener("abort", onAbort);
    await pool.killAll(deps, waiting);
  }

  // Not everything done and nothing failed: the caller aborted (a Ctrl-C after the last step is no interrupt).
  const interrupted = !state.failure && !plan.order.every((id) => status(id) === "done");
  const runStatus = state.failure ? "failed" : interrupted ? "interrupted" : "done";
  state.status = runStatus;
  await save();
  // A finished run's workers would stay in `umbel ls` for ever; a failed or interrupted run's are
  // its evidence and what --resume replaces, so they stay (as they do with keep).
  const purged = runStatus === "done" && !args.keep ? [...state.sessions] : null;
  if (purged) await Promise.all(purged.map((name) => purgeQuietly(deps, name)));
  const summary: RunSummary = {
    event: "summary",
    dryRun: false,
    runId: state.runId,
    status: runStatus,
    exitCode: state.failure?.exitCode ?? (interrupted ? EXIT.aborted : EXIT.ok),
    elapsedMs: deps.clock.now() - started,
    stateDir: store.dir,
    attempt: state.attempt,
    steps: Object.fromEntries(plan.order.map((id) => [id, status(id)])),
    outputs,
    ...(runStatus === "done" ? { final: finalOutputs(workflow, state.baseDir) } : {}),
    ...(purged ? { purged } : {}),
    ...(args.resume ? { resumed: args.resume.workers } : {}),
    ...(waiting.size > 0 ? { waiting: [...waiting] } : {}),
    ...(state.failure ? { failure: state.failure } : {}),
    ...(dialogs.length > 0 ? { dialogs } : {}),
  };
  args.onEvent(summary);
  return summary;
}

/** What a person does about a step waiting on a prompt: answer it on its kept worker, then resume. */
function waitingMessage(
  message: string,
  session: string,
  evidence: Record<string, unknown>,
  runId: string,
): string {
  const id = typeof evidence.inputId === "string" ? ` --input-id ${evidence.inputId}` : "";
  return `${message}; worker ${session} is kept: answer it (\`umbel answer ${session} allow${id}\`, or always, deny, an option), then \`umbel run --resume ${runId}\` continues this turn`;
}
