import { type ArgsDef, parseArgs } from "citty";
import { quoteArg } from "../../core/common/quote.ts";
import { UsageError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { RunWorkflowInput, workflowJsonSchema } from "../../core/workflow/schema.ts";
import type { WorkflowEvent } from "../../core/workflow/state.ts";
import { runWorkflow } from "../../operations/workflow/run.ts";
import { asksForHelp, formatIssues, refuseFlagLikeValues, rejectUnknownFlags } from "../cli/args.ts";
import { createLiveView } from "./live.ts";
import { renderEventLine, renderFailure, renderPlan, renderResumed, renderSummary } from "./render.ts";

export type WorkflowIo = {
  readonly deps: Deps;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly stdoutIsTty: boolean;
  readonly columns?: number | undefined;
};

const HELP = `Usage:
  umbel run FILE [--max-parallel N] [--keep] [--json]  run a workflow (docs/workflows.md)
  umbel run --resume RUN_ID [--max-parallel N]         re-run only the steps that did not finish
  umbel run FILE --dry-run [--json]                    validate and print the plan; spawns nothing
  umbel run --schema                                   print the file's JSON Schema (for editors)

  --json   one JSON line per step transition, then a summary line (the plan, with --dry-run)
  --keep   keep the workers as tombstones after a successful run (a failed run always keeps them)
Without --json, a successful run ends by printing its final steps' outputs (answers, file paths).
--resume goes on with each worker's live session (a step that waited for a person, answered with
umbel answer, continues that very turn) or resumes its recorded conversation; it says which.
Exit: 0 all steps done · 2 invalid file · the failing step's outcome code (122-126, 1 …) · 130 interrupted
`;

const ARGS = {
  file: { type: "positional", required: false, description: "The workflow YAML file" },
  resume: { type: "string", description: "Resume this run (its id)" },
  dryRun: { type: "boolean", description: "Print the plan; spawn nothing" },
  maxParallel: { type: "string", description: "Run at most N steps at once" },
  schema: { type: "boolean", description: "Print the JSON Schema of the file" },
  keep: { type: "boolean", description: "Keep the workers after a successful run" },
  json: { type: "boolean", description: "JSON lines on stdout" },
} satisfies ArgsDef;

/**
 * `umbel run`: argv → RunWorkflowInput, then the runner, with one of three views: JSON lines
 * (--json), a live table (stdout is a TTY), or log lines on stderr. stdout ends with the result.
 */
export async function runWorkflowFace(argv: readonly string[], io: WorkflowIo): Promise<number> {
  refuseFlagLikeValues(argv, ARGS);
  if (asksForHelp(argv)) {
    io.out(HELP);
    return 0;
  }
  rejectUnknownFlags(argv, ARGS);
  const args = parseArgs([...argv], ARGS) as Record<string, unknown> & { _: string[] };
  if (args.schema === true) {
    io.out(`${JSON.stringify(workflowJsonSchema(), null, 2)}\n`);
    return 0;
  }
  if (args._.length > 1)
    throw new UsageError(`one workflow file at a time (got ${args._.map((a) => quoteArg(a)).join(", ")})`);
  const input = parseInput({
    file: args._[0],
    resume: args.resume,
    dryRun: args["dry-run"] ?? args.dryRun,
    maxParallel: args["max-parallel"] ?? args.maxParallel,
    keep: args.keep,
  });
  const json = args.json === true;
  const view = json
    ? { onEvent: (e: WorkflowEvent) => io.out(`${JSON.stringify(e)}\n`), close: () => undefined }
    : io.stdoutIsTty && !input.dryRun
      ? createLiveView(io.out, io.columns)
      : { onEvent: (e: WorkflowEvent) => io.err(renderEventLine(e)), close: () => undefined };
  // What a resume does with each worker goes to stderr in every mode (and in the run event).
  const onEvent = (e: WorkflowEvent) => {
    if (e.event === "run" && e.resumed) io.err(renderResumed(e.resumed));
    view.onEvent(e);
  };
  let result: Awaited<ReturnType<typeof runWorkflow>>;
  try {
    result = await runWorkflow(io.deps, input, onEvent);
  } finally {
    view.close();
  }
  if (result.dryRun) {
    io.out(json ? `${JSON.stringify(result)}\n` : renderPlan(result));
    return 0;
  }
  // The failure goes to stderr in every mode: CI logs show it even when stdout is JSON for a program.
  if (result.failure) io.err(renderFailure(result.failure));
  if (!json) io.out(renderSummary(result));
  return result.exitCode;
}

function parseInput(raw: Record<string, unknown>): RunWorkflowInput {
  const given: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw))
    if (value !== undefined && value !== false) given[key] = value;
  if (typeof given.maxParallel === "string") {
    if (!/^\d+$/.test(given.maxParallel))
      throw new UsageError(
        `--max-parallel: expected a positive whole number, got ${quoteArg(given.maxParallel)}`,
      );
    given.maxParallel = Number(given.maxParallel);
  }
  const parsed = RunWorkflowInput.safeParse(given);
  if (!parsed.success)
    throw new UsageError(formatIssues(parsed.error, ["file"]), { issues: parsed.error.issues });
  return parsed.data;
}
