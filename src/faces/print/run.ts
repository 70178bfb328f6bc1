import { EXIT, UsageError } from "../../core/errors.ts";
import type { Outcome } from "../../core/outcome.ts";
import type { Deps } from "../../core/ports.ts";
import type { PrintInput } from "../../core/print-input.ts";
import {
  addModelUsage,
  buildInit,
  buildResult,
  decideEnding,
  endingExitCode,
  type PrintEnding,
} from "../../core/print-result.ts";
import { findSessionId } from "../../core/turn.ts";
import { runPrintTurn } from "../../operations/print-turn.ts";
import { loadWorker, readEvents } from "../../operations/worker.ts";
import { parsePrintArgs } from "./args.ts";
import { beginPrint } from "./begin.ts";
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
export async function runPrint(argv: readonly string[], io: PrintIo): Promise<number> {
  const args = parsePrintArgs(argv);
  if (args.help) {
    io.out(HELP);
    return EXIT.ok;
  }
  // `umbel --model -p hi`: the face was chosen for a -p that an option took as its value.
  if (!args.print)
    throw new UsageError("no -p/--print flag: an option took it as its value (see umbel -p --help)");
  // stdin, and with a producer still writing it, an anonymous worker starting meanwhile (begin.ts).
  const begun = await beginPrint(args, io);
  const { input, prompts, started } = begun;
  const output = createOutput(input.outputFormat, input.verbose, io.out);
  let worker: PrintWorker | null = begun.worker;
  try {
    worker ??= await acquireWorker(io.deps, input, io.err);
    if (worker.kind === "dead") return reportDead(io, input, output, worker, started);
    const { meta, provider } = await loadWorker(io.deps, worker.name);
    let runModelUsage: Record<string, Record<string, unknown>> = {};
    let code: number = EXIT.ok;
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
        },
        // A tracker fed from the middle of a transcript may not have seen the session id yet.
        (message) =>
          output.message(message.session_id == null ? { ...message, session_id: sessionId } : message),
        printInit,
      );
      const ending = decideEnding(turn.outcome, turn.text, turn.maxTurnsHit);
      code = endingExitCode(ending, turn.outcome);
      runModelUsage = addModelUsage(runModelUsage, turn.summary?.modelUsage ?? {});
      const result = buildResult({
        ending,
        summary: turn.summary,
        sessionId:
          turn.sessionId ?? findSessionId(provider, await readEvents(io.deps, provider, worker.name)),
        durationMs: io.deps.clock.now() - turnStarted,
        uuid: crypto.randomUUID(),
        resultIndex: index,
        stream: input.outputFormat === "stream-json",
        runModelUsage,
        umbel: extras(worker.name, input.provider, turn.outcome, ending, code),
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
      umbel: extras(worker.name, input.provider, outcome, ending, EXIT.dead),
    }),
    ending,
  );
  output.end();
  io.err(`umbel: ${message}\n`);
  return EXIT.dead;
}

function extras(worker: string, provider: string, outcome: Outcome, ending: PrintEnding, exitCode: number) {
  return {
    worker,
    provider,
    outcome: ending.kind === "max-turns" ? ("max-turns" as const) : outcome.reason,
    exitCode,
    // What umbel saw when the turn did not end cleanly (the prompt, the screen, the exit record).
    ...(ending.kind === "failure" || ending.kind === "api-error" ? { evidence: outcome.evidence } : {}),
  };
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
