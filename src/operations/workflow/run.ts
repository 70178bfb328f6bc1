import { dirname, resolve } from "node:path";
import { throwIfAborted } from "../../core/common/abort.ts";
import { quoteArg } from "../../core/common/quote.ts";
import { UsageError } from "../../core/errors.ts";
import type { Deps, RunStore } from "../../core/ports.ts";
import { findSessionId, findTranscriptPath, lastSubmitIndex } from "../../core/wait/turn.ts";
import { FALLBACK_PROVIDER } from "../../core/worker/default-provider.ts";
import { TOO_BIG, WORKFLOW_LIMITS } from "../../core/workflow/bounds.ts";
import { describePlan, resolveWorkerCwd, type WorkflowPlan } from "../../core/workflow/describe.ts";
import { type WorkflowIssue, workflowError } from "../../core/workflow/positions.ts";
import {
  lastSessions,
  planWorkerResume,
  type SessionSeen,
  type WorkerResumePlan,
} from "../../core/workflow/resume.ts";
import type { RunWorkflowInput } from "../../core/workflow/schema.ts";
import { planResume, type RunState, type RunSummary, type WorkflowEvent } from "../../core/workflow/state.ts";
import type { StepRecord } from "../../core/workflow/step-record.ts";
import {
  checkEnvironment,
  type LoadedWorkflow,
  loadWorkflow,
  throwIssues,
} from "../../core/workflow/validate.ts";
import { loadDefaultProvider } from "../worker/user-config.ts";
import { checkLiveness, loadWorker, readEvents } from "../worker/worker.ts";
import { executeRun } from "./runner.ts";
import { killQuietly } from "./workers.ts";

export type WorkflowResult = WorkflowPlan | RunSummary;

/**
 * `umbel run` and MCP `umbel_run`: validate the file (or the copy kept by the run being resumed),
 * then return the plan (dryRun) or run it to the end. A failed step is a result (summary.exitCode),
 * not a throw; a bad file throws a UsageError whose message names file:line:col.
 */
export async function runWorkflow(
  deps: Deps,
  input: RunWorkflowInput,
  onEvent: (event: WorkflowEvent) => void = () => undefined,
): Promise<WorkflowResult> {
  throwIfAborted(deps.signal, "the workflow");
  // The schema's refine says this too, but a face that registers only the shape would lose it.
  if ((input.file === undefined) === (input.resume === undefined))
    throw new UsageError("give a workflow file, or resume a run by its id (not both)", {});
  const source = input.resume ? await deps.runs.open(input.resume) : null;
  const path = source ? source.store.copyPath : resolve(deps.cwd, input.file ?? "");
  const text = source ? source.text : await readWorkflowFile(deps, path, input.file ?? "");
  const baseDir = source ? source.state.baseDir : dirname(path);
  const loaded = loadWorkflow(text, source ? path : (input.file ?? path));
  throwIssues(loaded, checkEnvironment(loaded.workflow, deps.env));
  throwIssues(loaded, await checkCwds(deps, loaded, baseDir));
  const declared = Object.fromEntries(loaded.workflow.steps.map((s) => [s.id, Object.keys(s.outputs ?? {})]));
  const resume = source ? planResume(loaded.plan.order, declared, source.state) : null;
  // A worker without `provider:` runs the default (UMBEL_PROVIDER, else config.toml's, else claude),
  // resolved once for the plan and the run; the config file is read only when a worker needs it.
  const defaultProvider = Object.values(loaded.workflow.workers).some((w) => w.provider === undefined)
    ? await loadDefaultProvider(deps, FALLBACK_PROVIDER)
    : FALLBACK_PROVIDER;

  if (input.dryRun) {
    return describePlan({
      workflow: loaded.workflow,
      plan: loaded.plan,
      file: loaded.file,
      baseDir,
      env: deps.env,
      defaultProvider,
      ...(resume && input.resume ? { reused: resume.reused, resumeOf: input.resume } : {}),
    });
  }

  const now = new Date(deps.clock.now()).toISOString();
  let store: RunStore;
  let state: RunState;
  let workerPlan: WorkerResumePlan | undefined;
  if (source && resume) {
    store = source.store;
    await store.lock();
    // Each worker goes on where it was: its live session kept (a run killed hard, SIGKILL or a
    // second Ctrl-C, may have left it running; a step that waited for a person left it so), or its
    // CLI's recorded conversation resumed; every other live session goes.
    workerPlan = planWorkerResume({
      steps: loaded.workflow.steps,
      rerun: resume.rerun,
      records: source.state.steps,
      current: lastSessions(Object.keys(loaded.workflow.workers), source.state, source.state.runId.slice(-6)),
      seen: await Promise.all(source.state.sessions.map((name) => seeSession(deps, name))),
    });
    await Promise.all(workerPlan.kill.map((name) => killQuietly(deps, name)));
    const previous: RunState = { ...source.state };
    delete previous.failure;
    state = {
      ...previous,
      status: "running",
      attempt: previous.attempt + 1,
      pid: deps.pid,
      updatedAt: now,
    };
    state.steps = freshRecords(loaded, (id) => (id in resume.reused ? previous.steps[id] : undefined));
  } else {
    const runId = deps.runs.newRunId(deps.clock.now());
    store = await deps.runs.create(runId, text);
    await store.lock();
    state = {
      version: 1,
      runId,
      file: path,
      baseDir,
      status: "running",
      attempt: 1,
      pid: deps.pid,
      createdAt: now,
      updatedAt: now,
      sessions: [],
      steps: freshRecords(loaded, () => undefined),
    };
  }
  try {
    await store.save(state);
    return await executeRun({
      deps,
      loaded,
      state,
      store,
      runHex: state.runId.slice(-6),
      maxParallel: input.maxParallel ?? Number.POSITIVE_INFINITY,
      keep: input.keep === true,
      onEvent,
      defaultProvider,
      ...(workerPlan ? { resume: workerPlan } : {}),
    });
  } finally {
    await store.unlock();
  }
}

/** Every step's record: kept when `keep` returns one (a finished step on resume), else pending. */
function freshRecords(
  loaded: LoadedWorkflow,
  keep: (id: string) => StepRecord | undefined,
): Record<string, StepRecord> {
  return Object.fromEntries(
    loaded.workflow.steps.map((s) => [s.id, keep(s.id) ?? { status: "pending", worker: s.run }]),
  );
}

/** The file's text; one over the size limit is refused at 1:1 without reading past the limit. */
async function readWorkflowFile(deps: Deps, path: string, given: string): Promise<string> {
  let head: { text: string; complete: boolean } | null;
  try {
    head = await deps.files.readHead(path, WORKFLOW_LIMITS.bytes);
  } catch (error) {
    throw new UsageError(
      `cannot read workflow ${quoteArg(given || path, 200)}: ${(error as Error).message}`,
      {
        file: path,
      },
    );
  }
  if (head === null)
    throw new UsageError(`cannot read workflow ${quoteArg(given || path, 200)}: no such file`, {
      file: path,
    });
  if (!head.complete) throw workflowError(given || path, [{ line: 1, col: 1, path: "", message: TOO_BIG }]);
  return head.text;
}

/** A session of the run as a resume finds it: alive, and the conversation its CLI recorded. */
async function seeSession(deps: Deps, name: string): Promise<SessionSeen> {
  const worker = await loadWorker(deps, name).catch(() => null);
  if (!worker) return { name, alive: false, providerSession: null, tookPrompt: false };
  const [live, events] = await Promise.all([
    checkLiveness(deps, worker).catch(() => ({ alive: false })),
    readEvents(deps, worker.provider, name).catch(() => []),
  ]);
  const { provider } = worker;
  const seen = {
    name,
    alive: live.alive,
    providerSession: findSessionId(provider, events),
    tookPrompt: lastSubmitIndex(provider, events) !== null,
  };
  if (provider.conversationsPerWorker)
    return {
      ...seen,
      unresumable: `${provider.displayName} keeps its conversations in each worker's own home`,
    };
  // The CLI resumes from its own record: a new container (or a cleaned home) no longer has it.
  const transcript =
    seen.alive || seen.providerSession === null ? null : findTranscriptPath(provider, events);
  if (transcript !== null && (await deps.files.size(transcript).catch(() => null)) === null)
    return {
      ...seen,
      unresumable: `its CLI's record of the conversation is gone (${transcript}; was the CLI's home kept?)`,
    };
  return seen;
}

/** Every worker's cwd must be a directory before anything is spawned. */
async function checkCwds(deps: Deps, loaded: LoadedWorkflow, baseDir: string): Promise<WorkflowIssue[]> {
  const issues: WorkflowIssue[] = [];
  // Once per distinct folder: 100,000 `w: {}` workers fit in the size limit and share one.
  const seen = new Map<string, boolean>();
  for (const [key, worker] of Object.entries(loaded.workflow.workers)) {
    const cwd = resolveWorkerCwd(baseDir, worker.cwd);
    if (!seen.has(cwd)) seen.set(cwd, await deps.files.isDirectory(cwd));
    if (!seen.get(cwd))
      issues.push({
        path: worker.cwd === undefined ? ["workers", key] : ["workers", key, "cwd"],
        message: `${cwd} is not a directory`,
      });
  }
  return issues;
}
