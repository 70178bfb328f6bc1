import { EXIT } from "../../core/errors.ts";
import type { Attempt } from "../../core/guard/record.ts";
import type { UsageLimit } from "../../core/limits/limits.ts";
import { tokensOfUsage } from "../../core/limits/telemetry.ts";
import type { PrintInput } from "../../core/print/input.ts";
import { describeInputEnding } from "../../core/print/print.ts";
import {
  addModelUsage,
  budgetSpentBy,
  decideEnding,
  type PrintEnding,
  runCostAfter,
} from "../../core/print/result.ts";
import { combineSummaries } from "../../core/print/summary.ts";
import type { StreamMessage, TurnSummary } from "../../core/providers/transcript-types.ts";
import type { Outcome } from "../../core/wait/outcome.ts";
import { findSessionId } from "../../core/wait/turn.ts";
import type { DialogAnswer } from "../../core/worker/outputs.ts";
import { startingCost } from "../../operations/limits/cost.ts";
import { runPrintTurn } from "../../operations/print/turn.ts";
import { loadWorker, readEvents } from "../../operations/worker/worker.ts";
import type { Begun } from "./begin.ts";
import type { PrintIo } from "./io.ts";
import { acquireWorker, type PrintWorker, releaseWorker } from "./worker.ts";

/** umbel's own record of the turn, beside the dialect's keys (`umbel` in every JSON result). */
export type UmbelExtras = {
  worker: string;
  provider: string;
  outcome: Outcome["reason"] | "max-turns";
  exitCode: number;
  evidence?: Outcome["evidence"];
  attempts?: Attempt[];
  /** A usage limit (limited): its window and reset time, also in evidence. */
  limit?: UsageLimit;
  /** The startup dialogs umbel answered for this run's new worker (also said on stderr). */
  dialogs?: DialogAnswer[];
};

export type TurnReport = {
  readonly ending: PrintEnding;
  readonly outcome: Outcome;
  readonly summary: TurnSummary | null;
  readonly sessionId: string | null;
  readonly durationMs: number;
  readonly resultIndex: number;
  /** modelUsage summed over the run's turns so far. */
  readonly runModelUsage: Record<string, Record<string, unknown>>;
  /** The run's cost so far as the provider records it (claude's statusline), or null where none is. */
  readonly costUsd: number | null;
  readonly exitCode: number;
  readonly umbel: UmbelExtras;
};

export type InitInfo = {
  readonly cwd: string;
  readonly sessionId: string | null;
  readonly model: string | null;
  readonly permissionMode: string;
  readonly prompt: string;
};

/**
 * How a dialect prints a run: the turn's start (once the prompt is in: codex names its session
 * only then), each message as it lands (claude's stream-json shape, which every provider's tracker
 * renders), each guardrail feedback prompt, each turn's result, and the end of the run.
 */
export type Renderer = {
  init(info: InitInfo): void;
  message(message: StreamMessage): void;
  feedback(text: string, sessionId: string | null): void;
  /** The dialect's exit code for a turn's ending (claude -p: 1 for an API error, …). */
  exitCode(ending: PrintEnding, outcome: Outcome, summary: TurnSummary | null): number;
  result(report: TurnReport): void;
  end(): void;
};

/**
 * Runs the prompts (one, or one per stdin line with claude's --input-format stream-json) as turns on
 * one worker; an anonymous worker is purged on every exit path (SIGINT included: the signal aborts
 * the operations and the finally below runs), and a claimed spare's refill starts once the turns are
 * over. `begun` (begin.ts): the prompts, when the run started, and the worker already started while
 * stdin was read (null: acquired here). Returns the exit code.
 */
export async function runTurns(
  io: PrintIo,
  input: PrintInput,
  render: Renderer,
  begun: Pick<Begun, "prompts" | "started" | "worker">,
): Promise<number> {
  const { prompts, started } = begun;
  let worker: PrintWorker | null = begun.worker;
  try {
    worker ??= await acquireWorker(io.deps, input, io.err);
    if (worker.kind === "dead") return reportDead(io, input, render, worker, started);
    const loaded = worker.loaded ?? (await loadWorker(io.deps, worker.name));
    const { meta, provider } = loaded;
    let runModelUsage: Record<string, Record<string, unknown>> = {};
    let code: number = EXIT.ok;
    // total_cost_usd and --max-budget-usd count from here (a warm worker has spent before).
    const wantCost = input.outputFormat !== "text" || input.maxBudgetUsd !== undefined;
    const costBase = wantCost ? await startingCost(io.deps, provider, worker.name) : null;
    let runCost: number | null = costBase === null ? null : 0;
    for (const [index, prompt] of prompts.entries()) {
      const turnStarted = index === 0 ? started : io.deps.clock.now();
      const workerName = worker.name;
      let sessionId: string | null = meta.sessionId;
      const onSent = async () => {
        const events = await readEvents(io.deps, provider, workerName);
        sessionId = findSessionId(provider, events) ?? meta.sessionId;
        render.init({
          cwd: meta.cwd,
          sessionId,
          model: lastString(events, "model") ?? meta.model ?? null,
          permissionMode: lastString(events, "permission_mode") ?? meta.permissionMode ?? "default",
          prompt,
        });
      };
      const turn = await runPrintTurn(
        io.deps,
        {
          name: worker.name,
          prompt,
          maxTurns: input.maxTurns,
          timeout: input.timeout,
          idleTimeout: input.idleTimeout,
          jsonSchema: input.jsonSchema,
          accept: input.accept,
          maxAttempts: input.maxAttempts,
          acceptTimeout: input.acceptTimeout,
          maxTokens: input.maxTokens,
          maxBudgetUsd: input.maxBudgetUsd,
          costBaseUsd: costBase,
          wantCost,
          worker: loaded,
          // The claim's liveness look stands for the first send's (one tmux call fewer).
          claimed: index === 0 && worker.claimed === true,
        },
        // A tracker fed from the middle of a transcript may not have seen the session id yet.
        (message) =>
          render.message(message.session_id == null ? { ...message, session_id: sessionId } : message),
        onSent,
        (text) => render.feedback(text, sessionId),
      );
      const summary = combineSummaries(turn.summaries);
      runCost = runCostAfter(runCost, turn.costUsd, costBase, tokensOfUsage(summary?.usage).total > 0);
      const costUsd = runCost;
      const ending = forPrint(
        decideEnding(turn.outcome, turn.text, turn.maxTurnsHit, budgetSpentBy(input.maxBudgetUsd, costUsd)),
        turn.outcome,
        worker,
      );
      code = render.exitCode(ending, turn.outcome, summary);
      runModelUsage = withCost(addModelUsage(runModelUsage, summary?.modelUsage ?? {}), costUsd);
      render.result({
        ending,
        outcome: turn.outcome,
        summary,
        sessionId:
          turn.sessionId ?? findSessionId(provider, await readEvents(io.deps, provider, worker.name)),
        durationMs: io.deps.clock.now() - turnStarted,
        resultIndex: index,
        runModelUsage,
        costUsd,
        exitCode: code,
        umbel: {
          ...extras(worker.name, input.provider, turn.outcome, ending, code),
          ...(turn.attempts ? { attempts: turn.attempts } : {}),
          ...(worker.dialogs?.length ? { dialogs: worker.dialogs } : {}),
        },
      });
      if (code !== EXIT.ok) break;
    }
    render.end();
    return code;
  } finally {
    await releaseWorker(io.deps, worker);
  }
}

/** A turn that needs a person: how to answer it (a kept --name worker) or how to keep the worker. */
function forPrint(ending: PrintEnding, outcome: Outcome, worker: PrintWorker): PrintEnding {
  if (ending.kind !== "failure" || ending.reason !== "input" || worker.kind !== "ready") return ending;
  return { ...ending, message: describeInputEnding(outcome, worker) };
}

/** A `--name`/`--resume` worker that died: reported with its evidence, never silently respawned. */
function reportDead(
  io: PrintIo,
  input: PrintInput,
  render: Renderer,
  worker: Extract<PrintWorker, { kind: "dead" }>,
  started: number,
): number {
  const exit = worker.exit?.signal
    ? ` (signal ${worker.exit.signal})`
    : worker.exit?.exitCode !== undefined
      ? ` (exit ${worker.exit.exitCode})`
      : "";
  const message = `worker ${worker.name} is ${worker.state}${exit}; kill --purge it to start over`;
  const outcome: Outcome = {
    reason: "dead",
    exitCode: EXIT.dead,
    name: worker.name,
    baseline: 0,
    elapsedMs: 0,
    evidence: { exit: worker.exit, screen: worker.screen },
  };
  const ending: PrintEnding = { kind: "failure", reason: "dead", message };
  render.result({
    ending,
    outcome,
    summary: null,
    sessionId: null,
    durationMs: io.deps.clock.now() - started,
    resultIndex: 0,
    runModelUsage: {},
    costUsd: null,
    exitCode: EXIT.dead,
    umbel: extras(worker.name, input.provider, outcome, ending, EXIT.dead),
  });
  render.end();
  return EXIT.dead;
}

function extras(
  worker: string,
  provider: string,
  outcome: Outcome,
  ending: PrintEnding,
  exitCode: number,
): UmbelExtras {
  const limit = outcome.evidence.limit;
  return {
    worker,
    provider,
    outcome: ending.kind === "max-turns" ? ("max-turns" as const) : outcome.reason,
    exitCode,
    // What umbel saw when the turn did not end cleanly (the prompt, the screen, the exit record).
    ...(ending.kind === "failure" || ending.kind === "api-error" || ending.kind === "budget"
      ? { evidence: outcome.evidence }
      : {}),
    // A usage limit's window and reset time, where the caller looks first.
    ...(outcome.reason === "limited" && limit ? { limit } : {}),
    // --on-limit failover: the accounts the turn moved across.
    ...(outcome.evidence.failover ? { failover: outcome.evidence.failover } : {}),
  };
}

/**
 * claude -p's modelUsage[].costUSD: the provider records the session's cost, not each model's, so it
 * is filled only when one model ran (never split by a price table); else it stays null.
 */
function withCost(
  usage: Record<string, Record<string, unknown>>,
  costUsd: number | null,
): Record<string, Record<string, unknown>> {
  const models = Object.keys(usage);
  const only = models[0];
  if (costUsd === null || models.length !== 1 || only === undefined) return usage;
  return { [only]: { ...usage[only], costUSD: costUsd } };
}

function lastString(
  events: readonly { payload: Readonly<Record<string, unknown>> }[],
  key: string,
): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const value = events[i]?.payload[key];
    if (typeof value === "string" && value !== "") return value;
  }
  return null;
}
