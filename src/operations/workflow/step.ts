import { resolve } from "node:path";
import { EXIT, toUmbelError, UmbelError } from "../../core/errors.ts";
import type { GuardedSendInput } from "../../core/guard/fields.ts";
import type { Deps } from "../../core/ports.ts";
import { describeFailure } from "../../core/print/print.ts";
import { isJsonObjectText } from "../../core/schemas.ts";
import { isBlankPrompt } from "../../core/worker/prompt.ts";
import { boundOutput, type OutputCut } from "../../core/workflow/output-cut.ts";
import type { WorkflowStep } from "../../core/workflow/schema.ts";
import type { StepFailure } from "../../core/workflow/step-record.ts";
import { readOutputFile } from "./output-file.ts";
import type { WorkerVerbs } from "./worker-verbs.ts";
import { verbsOf } from "./workers.ts";

/**
 * claude fires Stop while its screen still shows "Working…" for a moment (the fake: ~100-300 ms), so
 * the next step on the same worker can find it busy; send refuses before typing anything, so retry.
 */
const READY_WAIT_MS = 10_000;

export type StepResult =
  | { ok: true; session: string; outputs: Record<string, string>; cut?: Record<string, OutputCut> }
  | { ok: false; stopped: boolean; failure: Omit<StepFailure, "step" | "worker"> };

/**
 * One step through the same operations the CLI uses: a worker (acquired by the caller's pool), send,
 * wait, then the outputs. Any outcome but stop is a failure with the outcome's evidence; a step cut
 * short because the run is stopping (another step failed, or SIGINT) is `stopped`, not failed.
 */
export async function executeStep(args: {
  deps: Deps;
  step: WorkflowStep;
  prompt: string;
  cwd: string;
  /** The workflow file's folder: a `schema` file is relative to it. */
  baseDir: string;
  acquire: () => Promise<string>;
  onRunning: (session: string, baseline: number) => void;
  /** A resume that kept the step's session: the baseline of its turn, followed instead of sent again. */
  turn?: number | undefined;
}): Promise<StepResult> {
  const { deps, step } = args;
  let session: string | null = null;
  const fail = (outcome: string, exitCode: number, message: string, evidence: object): StepResult => ({
    ok: false,
    stopped: deps.signal?.aborted === true,
    failure: { session, outcome, exitCode, message, evidence: { ...evidence } },
  });
  // `{{ env.X }}` with X="" (or an empty answer) can render a blank prompt: send could only fail.
  if (isBlankPrompt(args.prompt))
    return fail("usage", EXIT.usage, "the prompt is empty once its templates are filled in", {});
  try {
    session = await args.acquire();
    // This machine's operations, or (a HOST:NAME session) the host's, relayed.
    const { verbs, name } = verbsOf(session);
    const sent =
      args.turn === undefined
        ? await sendWhenReady(deps, verbs, { name, prompt: args.prompt, ...guardOf(step, args.baseDir) })
        : { baseline: args.turn };
    args.onRunning(session, sent.baseline);
    // The step's guardrails are enforced by the same wait as the CLI's (check → feedback → …),
    // on the worker's machine.
    const outcome = await verbs.wait(deps, {
      name,
      after: sent.baseline,
      ...(step.timeout === undefined ? {} : { timeout: step.timeout }),
      ...(step.idleTimeout === undefined ? {} : { idleTimeout: step.idleTimeout }),
      ...(step.maxTokens === undefined ? {} : { maxTokens: step.maxTokens }),
    });
    if (outcome.reason !== "stop")
      return fail(outcome.reason, outcome.exitCode, describeFailure(outcome, ""), outcome.evidence);
    const outputs: Record<string, string> = {};
    const cut: Record<string, OutputCut> = {};
    const keep = (key: string, text: string) => {
      const bounded = boundOutput(key, text);
      outputs[key] = bounded.text;
      if (bounded.cut) cut[key] = bounded.cut;
    };
    for (const [key, spec] of Object.entries(step.outputs ?? {})) {
      if (spec === "answer") {
        keep(key, (await verbs.read(deps, { name, after: sent.baseline })).text);
        continue;
      }
      if (spec.startsWith("structured")) {
        const { structured } = await verbs.read(deps, { name, after: sent.baseline });
        const value = valueAt(structured, spec.split(".").slice(1));
        if (value === undefined)
          return fail("missing-output", EXIT.failure, `output ${key}: the object has no ${spec}`, {
            key,
            structured,
          });
        keep(key, typeof value === "string" ? value : JSON.stringify(value));
        continue;
      }
      const file = await readOutputFile(deps, args.cwd, key, spec);
      if (!file.ok) return fail(file.outcome, EXIT.failure, file.message, { path: file.path, key });
      outputs[key] = file.text;
      if (file.cut) cut[key] = file.cut;
    }
    return { ok: true, session, outputs, ...(Object.keys(cut).length > 0 ? { cut } : {}) };
  } catch (error) {
    const e = toUmbelError(error);
    return fail(e.code, e.exitCode, e.message, e.data);
  }
}

/** The step's guardrails as send's; a schema file is resolved against the workflow's folder. */
function guardOf(step: WorkflowStep, baseDir: string): Omit<GuardedSendInput, "name" | "prompt"> {
  const schema = step.schema;
  const jsonSchema =
    typeof schema === "string" && !isJsonObjectText(schema) ? resolve(baseDir, schema) : schema;
  return {
    ...(jsonSchema === undefined ? {} : { jsonSchema }),
    ...(step.accept === undefined ? {} : { accept: step.accept }),
    ...(step.maxAttempts === undefined ? {} : { maxAttempts: step.maxAttempts }),
    ...(step.acceptTimeout === undefined ? {} : { acceptTimeout: step.acceptTimeout }),
  };
}

/** The value at a dotted path of a JSON value (array items by index), or undefined. */
function valueAt(value: unknown, path: readonly string[]): unknown {
  let at = value;
  for (const key of path) {
    if (at === null || typeof at !== "object") return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return at === null && path.length === 0 ? undefined : at;
}

async function sendWhenReady(deps: Deps, verbs: WorkerVerbs, input: GuardedSendInput) {
  const until = deps.clock.now() + READY_WAIT_MS;
  for (;;) {
    try {
      return await verbs.send(deps, input);
    } catch (error) {
      // busy: WorkerBusyError here, a RemoteError of that code from a host.
      const busy = error instanceof UmbelError && error.code === "busy";
      if (!busy || deps.clock.now() >= until || deps.signal?.aborted) throw error;
      await deps.clock.sleep(100, deps.signal);
    }
  }
}
