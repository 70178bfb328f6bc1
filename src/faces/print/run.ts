import { resolve } from "node:path";
import { EXIT, UsageError } from "../../core/errors.ts";
import type { Outcome } from "../../core/outcome.ts";
import type { Deps, FilesPort } from "../../core/ports.ts";
import { checkPrintInput, PrintInput, parseStreamInput } from "../../core/print-input.ts";
import {
  addModelUsage,
  buildInit,
  buildResult,
  decideEnding,
  endingExitCode,
  type PrintEnding,
} from "../../core/print-result.ts";
import { combineSummaries } from "../../core/print-summary.ts";
import { getProvider } from "../../core/providers/registry.ts";
import { quoteArg } from "../../core/quote.ts";
import { isJsonObjectText } from "../../core/schemas.ts";
import { tokensOfUsage } from "../../core/telemetry.ts";
import { findSessionId } from "../../core/turn.ts";
import { startingCost } from "../../operations/cost.ts";
import { resolveSchema } from "../../operations/guard-plan.ts";
import { readJsonOrFile } from "../../operations/json-or-file.ts";
import { runPrintTurn } from "../../operations/print-turn.ts";
import { loadWorker, readEvents } from "../../operations/worker.ts";
import { formatIssues } from "../cli/args.ts";
import { parsePrintArgs } from "./args.ts";
import HELP from "./help.md" with { type: "text" };
import { createOutput, type PrintOutput } from "./output.ts";
import { acquireWorker, type PrintWorker, releaseWorker } from "./worker.ts";

export type PrintIo = {
  readonly deps: Deps;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly readStdin: () => Promise<string>;
  readonly stdinIsTty: boolean;
};

/**
 * `umbel -p [PROMPT]`: claude -p through the interactive TUI. Each prompt (one, or one per stdin line
 * with --input-format stream-json) is a turn on one worker; an anonymous worker is purged on every
 * exit path (SIGINT included: the signal aborts the operations and the finally below runs).
 */
/**
 * stream-json's assistant messages and --max-turns come from following the transcript turn by turn
 * (Provider.trackTurn); a provider without it (codex, gemini) gets text and json only.
 */
function refuseUntracked(input: PrintInput): void {
  const provider = getProvider(input.provider);
  if (provider.trackTurn) return;
  if (input.outputFormat === "stream-json")
    throw new UsageError(`--output-format stream-json is not supported with --provider ${provider.id}`);
  if (input.maxTurns !== undefined)
    throw new UsageError(`--max-turns is not supported with --provider ${provider.id}`);
}

export async function runPrint(argv: readonly string[], io: PrintIo): Promise<number> {
  const args = parsePrintArgs(argv);
  if (args.help) {
    io.out(HELP);
    return EXIT.ok;
  }
  // `umbel --model -p hi`: the face was chosen for a -p that an option took as its value.
  if (!args.print)
    throw new UsageError("no -p/--print flag: an option took it as its value (see umbel -p --help)");
  const input = await readInput(args, io);
  refuseUntracked(input);
  const prompts = input.inputFormat === "stream-json" ? parseStreamInput(input.prompt) : [input.prompt];
  const output = createOutput(input.outputFormat, input.verbose, io.out);
  const started = io.deps.clock.now();
  let worker: PrintWorker | null = null;
  try {
    worker = await acquireWorker(io.deps, input, io.err);
    if (worker.kind === "dead") return reportDead(io, input, output, worker, started);
    const { meta, provider } = await loadWorker(io.deps, worker.name);
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
      // The init line is printed once the prompt is in: codex names its session and model only then.
      const printInit = async () => {
        const events = await readEvents(io.deps, provider, workerName);
        sessionId = findSessionId(provider, events) ?? meta.sessionId;
        output.init(
          buildInit({
            cwd: meta.cwd,
            sessionId,
            model: lastString(events, "model") ?? meta.model ?? null,
            permissionMode: lastString(events, "permission_mode") ?? meta.permissionMode ?? "default",
            uuid: crypto.randomUUID(),
          }),
        );
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
        },
        // A tracker fed from the middle of a transcript may not have seen the session id yet.
        (message) =>
          output.message(message.session_id == null ? { ...message, session_id: sessionId } : message),
        printInit,
        // A guardrail's next prompt is a user message (claude -p prints its enforce message so).
        (text) => output.message(feedbackMessage(text, sessionId, io.deps.clock.now())),
      );
      const summary = combineSummaries(turn.summaries);
      // A turn that used no tokens (an API error, a limit) cost nothing, whatever else claude spent.
      const used = tokensOfUsage(summary?.usage).total > 0;
      if (turn.costUsd !== null && used) runCost = Math.max(0, turn.costUsd - (costBase ?? 0));
      const costUsd = runCost;
      const spent =
        input.maxBudgetUsd !== undefined && costUsd !== null && costUsd >= input.maxBudgetUsd
          ? { unit: "usd" as const, limit: input.maxBudgetUsd }
          : null;
      const ending = decideEnding(turn.outcome, turn.text, turn.maxTurnsHit, spent);
      code = endingExitCode(ending, turn.outcome);
      runModelUsage = withCost(addModelUsage(runModelUsage, summary?.modelUsage ?? {}), costUsd);
      const result = buildResult({
        ending,
        summary,
        sessionId:
          turn.sessionId ?? findSessionId(provider, await readEvents(io.deps, provider, worker.name)),
        durationMs: io.deps.clock.now() - turnStarted,
        uuid: crypto.randomUUID(),
        resultIndex: index,
        stream: input.outputFormat === "stream-json",
        runModelUsage,
        costUsd,
        umbel: {
          ...extras(worker.name, input.provider, turn.outcome, ending, code),
          ...(turn.attempts ? { attempts: turn.attempts } : {}),
        },
      });
      output.result(result, ending);
      if (ending.kind === "failure") io.err(`umbel: ${ending.message}\n`);
      if (code !== EXIT.ok) break;
    }
    output.end();
    return code;
  } finally {
    await releaseWorker(io.deps, worker);
  }
}

async function readInput(args: ReturnType<typeof parsePrintArgs>, io: PrintIo): Promise<PrintInput> {
  const stdin = io.stdinIsTty ? "" : await io.readStdin();
  const streamInput = args.raw.inputFormat === "stream-json";
  if (streamInput && args.argvPrompt !== "")
    throw new UsageError("a prompt argument cannot be combined with --input-format stream-json");
  const prompt = streamInput
    ? stdin
    : [args.argvPrompt, stdin.replace(/\n$/, "")].filter((p) => p !== "").join("\n");
  const raw: Record<string, unknown> = { ...args.raw, prompt };
  if (args.settings !== undefined)
    raw.settings = await readSettings(io.deps.files, args.settings, args.raw.cwd, io.deps.cwd);
  const parsed = PrintInput.safeParse(raw);
  if (!parsed.success) throw new UsageError(formatIssues(parsed.error), { issues: parsed.error.issues });
  checkPrintInput(parsed.data);
  // Checked before a worker is made (claude -p refuses a bad schema before it starts, too).
  if (parsed.data.jsonSchema !== undefined)
    parsed.data.jsonSchema = await resolveSchema(io.deps, parsed.data.jsonSchema);
  return parsed.data;
}

/** claude's --settings: JSON text, or else a file path (resolved where the worker runs). */
async function readSettings(files: FilesPort, value: string, cwd: unknown, here: string): Promise<string> {
  const { path, text } = await readJsonOrFile(
    files,
    value,
    typeof cwd === "string" ? resolve(here, cwd) : here,
  );
  if (path === null) return value;
  if (text === null) throw new UsageError(`Settings file not found: ${quoteArg(path, 200)}`, { path });
  if (!isJsonObjectText(text))
    throw new UsageError(`--settings ${quoteArg(path, 200)}: not a JSON object`, { path });
  return text;
}

function reportDead(
  io: PrintIo,
  input: PrintInput,
  output: PrintOutput,
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
  output.result(
    buildResult({
      ending,
      summary: null,
      sessionId: null,
      durationMs: io.deps.clock.now() - started,
      uuid: crypto.randomUUID(),
      resultIndex: 0,
      stream: input.outputFormat === "stream-json",
      runModelUsage: {},
      costUsd: null,
      umbel: extras(worker.name, input.provider, outcome, ending, EXIT.dead),
    }),
    ending,
  );
  output.end();
  io.err(`umbel: ${message}\n`);
  return EXIT.dead;
}

function extras(worker: string, provider: string, outcome: Outcome, ending: PrintEnding, exitCode: number) {
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
  };
}

/** claude -p's line for a user message umbel sends on its own (its enforce message is `isSynthetic`). */
function feedbackMessage(text: string, sessionId: string | null, now: number): Record<string, unknown> {
  return {
    type: "user",
    message: { role: "user", content: [{ type: "text", text }] },
    parent_tool_use_id: null,
    session_id: sessionId,
    uuid: crypto.randomUUID(),
    timestamp: new Date(now).toISOString(),
    isSynthetic: true,
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
