import { EXIT, toUmbelError, WorkerBusyError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import { describeFailure } from "../../core/print.ts";
import { isBlankPrompt } from "../../core/prompt.ts";
import type { WorkflowStep } from "../../core/workflow/schema.ts";
import type { StepFailure } from "../../core/workflow/state.ts";
import { readAnswer } from "../read.ts";
import { sendPrompt } from "../send.ts";
import { waitForTurn } from "../wait.ts";
import { readOutputFile } from "./output-file.ts";

/**
 * claude fires Stop while its screen still shows "Working…" for a moment (the fake: ~100-300 ms), so
 * the next step on the same worker can find it busy; send refuses before typing anything, so retry.
 */
const READY_WAIT_MS = 10_000;

export type StepResult =
  | { ok: true; session: string; outputs: Record<string, string> }
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
  acquire: () => Promise<string>;
  onRunning: (session: string) => void;
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
    const sent = await sendWhenReady(deps, session, args.prompt);
    args.onRunning(session);
    const outcome = await waitForTurn(deps, {
      name: session,
      after: sent.baseline,
      ...(step.timeout === undefined ? {} : { timeout: step.timeout }),
      ...(step.idleTimeout === undefined ? {} : { idleTimeout: step.idleTimeout }),
      ...(step.maxTokens === undefined ? {} : { maxTokens: step.maxTokens }),
    });
    if (outcome.reason !== "stop")
      return fail(outcome.reason, outcome.exitCode, describeFailure(outcome, ""), outcome.evidence);
    const outputs: Record<string, string> = {};
    for (const [key, spec] of Object.entries(step.outputs ?? {})) {
      if (spec === "answer") {
        outputs[key] = (await readAnswer(deps, { name: session, after: sent.baseline })).text;
        continue;
      }
      const file = await readOutputFile(deps, args.cwd, key, spec);
      if (!file.ok) return fail(file.outcome, EXIT.failure, file.message, { path: file.path, key });
      outputs[key] = file.text;
    }
    return { ok: true, session, outputs };
  } catch (error) {
    const e = toUmbelError(error);
    return fail(e.code, e.exitCode, e.message, e.data);
  }
}

async function sendWhenReady(deps: Deps, name: string, prompt: string) {
  const until = deps.clock.now() + READY_WAIT_MS;
  for (;;) {
    try {
      return await sendPrompt(deps, { name, prompt });
    } catch (error) {
      if (!(error instanceof WorkerBusyError) || deps.clock.now() >= until || deps.signal?.aborted)
        throw error;
      await deps.clock.sleep(100, deps.signal);
    }
  }
}
