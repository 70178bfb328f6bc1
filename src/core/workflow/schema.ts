import { z } from "zod";
import { AcceptCommands, AcceptTimeout, JsonSchemaValue, MaxAttempts } from "../guard/fields.ts";
import { HostName } from "../hosts/schema.ts";
import { Duration, MaxTokens, Prompt } from "../schemas.ts";
import { SpawnInput } from "../spawn/input.ts";
import { WorkerResume } from "./resume.ts";

/**
 * The workflow file (`umbel run workflow.yaml`). Keys are camelCase, exactly as in the spawn schema
 * and the MCP tools, so one zod object serves YAML, MCP and `--schema`; a kebab-case key is an
 * unknown key (the error suggests the camelCase spelling).
 */

const WorkflowWorkerKey = z
  .string()
  .regex(/^[a-z0-9][a-z0-9-]{0,39}$/, "a worker key is 1-40 of a-z 0-9 - and starts with a letter or digit")
  .describe("Worker key: 1-40 characters of a-z, 0-9 and -, starting with a letter or digit");

const StepId = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_-]{0,62}$/, "an id is letters, digits, _ and -, starting with a letter or _")
  .describe("Step id: letters, digits, _ and -, starting with a letter or _");

const OutputKey = StepId.describe("Output name, used as {{ steps.ID.outputs.NAME }}");

/**
 * `answer` (the final assistant text), `file:PATH` (a file relative to the worker's cwd), or
 * `structured[.a.b]` (the step's StructuredOutput object, or the value at that path in it).
 */
const OUTPUT_SPEC = "an output is `answer`, `file:PATH` or `structured[.PATH]`";
const OutputSpec = z
  .union(
    [
      z.literal("answer"),
      z.string().regex(/^file:.+$/, OUTPUT_SPEC),
      z.string().regex(/^structured(\.[^.\s]+)*$/, OUTPUT_SPEC),
    ],
    { error: OUTPUT_SPEC },
  )
  .describe(
    "answer = the final assistant text of the step; file:PATH = that file, relative to the worker's cwd; structured.PATH = a value of the step's `schema` object (structured alone: all of it, as JSON)",
  );

/** A worker is a spawn request without its name (the key names it). */
export const WorkflowWorker = SpawnInput.omit({ name: true })
  .extend({
    cwd: z
      .string()
      .min(1)
      .optional()
      .describe(
        "Working directory of the worker; a relative path is resolved against the workflow file's folder (the default). With host: a path on the host, absolute, used as is (default: the folder the host's umbel starts in)",
      ),
    host: HostName.optional().describe(
      "Run this worker on this host of config.toml ([hosts.NAME]: its umbel, over ssh; docs/hosts.md); its session is HOST:NAME, its cwd, accept checks and provider default the host's",
    ),
  })
  .strict()
  .describe("A worker: an agent CLI session that keeps its conversation across the steps it runs");
export type WorkflowWorker = z.infer<typeof WorkflowWorker>;

export const WorkflowStep = z
  .object({
    id: StepId,
    run: WorkflowWorkerKey.describe("The worker (a key of `workers`) that runs this step"),
    prompt: Prompt.describe(
      "The prompt; may use {{ env.NAME }} and {{ steps.ID.outputs.KEY }} (ID must be in needs)",
    ),
    needs: z
      .array(StepId)
      .optional()
      .describe("Steps that must finish first (their outputs become available to this step)"),
    timeout: Duration.optional().describe(
      "Fail the step (outcome timeout) after this long (default 30m, at most 168h)",
    ),
    idleTimeout: Duration.optional().describe(
      "Fail the step (outcome idle) once the worker's screen, events and transcript are still this long",
    ),
    outputs: z
      .record(OutputKey, OutputSpec)
      .optional()
      .describe("Named results of the step: NAME → answer | file:PATH"),
    fresh: z
      .boolean()
      .optional()
      .describe("Start the worker anew for this step (no memory of its earlier steps in this run)"),
    schema: JsonSchemaValue.optional().describe(
      "The step ends with an object matching this JSON Schema (a YAML map, JSON text, or a file relative to the workflow's folder); its outputs can name structured.PATH",
    ),
    accept: z
      .union([AcceptCommands.element, AcceptCommands])
      .transform((v) => (typeof v === "string" ? [v] : v))
      .optional()
      .describe(
        "Accept check(s): shell commands (in the worker's cwd, with your authority) that must exit 0 once the step's turn ends; a failure goes back to the worker, which tries again",
      ),
    maxAttempts: MaxAttempts.optional(),
    acceptTimeout: AcceptTimeout.optional(),
    maxTokens: MaxTokens.optional(),
  })
  .strict()
  .describe("One prompt sent to one worker; the step ends when the turn ends (and its guardrails hold)");
export type WorkflowStep = z.infer<typeof WorkflowStep>;

export const Workflow = z
  .object({
    workers: z
      .record(WorkflowWorkerKey, WorkflowWorker)
      .describe("The workers, by key; each is spawned on its first step and killed when the run ends"),
    steps: z
      .array(WorkflowStep)
      .min(1, "a workflow needs at least one step")
      .describe("The steps; they run in parallel where `needs` allows"),
  })
  .strict()
  .meta({ title: "umbel workflow", description: "A DAG of prompts over agent CLI workers (umbel run)" });
export type Workflow = z.infer<typeof Workflow>;

export const RunId = z
  .string()
  .regex(/^\d{8}-\d{6}-[0-9a-f]{6}$/, "a run id looks like 20250101-120000-a1b2c3")
  .describe("A run id, as printed when the run started");

/** `umbel run` and MCP `umbel_run`: exactly one of file / resume. */
export const RunWorkflowInput = z
  .object({
    file: z
      .string()
      .min(1)
      .optional()
      .describe("The workflow YAML file (a relative path is resolved against the current directory)"),
    resume: RunId.optional().describe(
      "Resume this run: re-run only the steps that did not finish, reusing the outputs of those that did",
    ),
    dryRun: z
      .boolean()
      .optional()
      .describe("Validate and return the plan (waves, workers, prompts) without spawning anything"),
    maxParallel: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("Run at most this many steps at once (default: as many as `needs` and the workers allow)"),
    keep: z
      .boolean()
      .optional()
      .describe(
        "Keep the run's workers as tombstones when it succeeds (default: removed; a failed run always keeps them for --resume and evidence)",
      ),
  })
  .strict()
  .refine((v) => (v.file === undefined) !== (v.resume === undefined), {
    message: "give a workflow file, or --resume RUN_ID (not both)",
  });
export type RunWorkflowInput = z.infer<typeof RunWorkflowInput>;

/**
 * What runWorkflow returns, for MCP's outputSchema: a plan (dryRun: true; see WorkflowPlan in
 * describe.ts) or a run summary (dryRun: false; RunSummary in state.ts). Loose, because the two
 * differ; the keys a caller branches on are named.
 */
export const RunWorkflowOutput = z.looseObject({
  dryRun: z.boolean().describe("true: this is the plan and nothing ran"),
  exitCode: z.number().int().describe("0 when every step finished; else the failing outcome's code, or 130"),
  runId: z.string().optional().describe("The run's id, for resume"),
  status: z.enum(["done", "failed", "interrupted"]).optional(),
  steps: z.record(z.string(), z.string()).optional().describe("Each step's final status"),
  outputs: z
    .record(z.string(), z.record(z.string(), z.string()))
    .optional()
    .describe("Outputs of the finished steps: step id → name → text"),
  final: z
    .array(z.record(z.string(), z.string()))
    .optional()
    .describe(
      "A finished run's final outputs (steps no other step needs): {step, output, kind: answer|file, path}",
    ),
  purged: z
    .array(z.string())
    .optional()
    .describe(
      "The worker sessions a successful run removed (absent with keep, or when the run did not finish)",
    ),
  failure: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("The failed step: step, worker, outcome, message, evidence"),
  dialogs: z
    .array(z.record(z.string(), z.unknown()))
    .optional()
    .describe(
      "Each startup dialog the run's workers answered: {session, provider, dialog, answer, folders, lasting, record}, as umbel_spawn's",
    ),
  waiting: z
    .array(z.string())
    .optional()
    .describe(
      "Sessions left running on a prompt for a person (a step ended in input): answer it, then resume continues that turn",
    ),
  resumed: z
    .array(WorkerResume)
    .optional()
    .describe("A resume: what it did with each worker that had a step left (kept, resumed, fresh)"),
  waves: z
    .array(z.array(z.record(z.string(), z.unknown())))
    .optional()
    .describe("The plan's waves (dryRun)"),
  workers: z.record(z.string(), z.unknown()).optional().describe("The plan's workers (dryRun)"),
});

/** The JSON Schema of the file, for editors (`umbel run --schema`). */
export function workflowJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(Workflow, { io: "input", target: "draft-2020-12" }) as Record<string, unknown>;
}
