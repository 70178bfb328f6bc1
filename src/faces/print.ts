import { parseArgs } from "citty";
import { UsageError, WorkerDeadError } from "../core/errors.ts";
import { buildPrintResult, describeFailure, PrintInput } from "../core/print.ts";
import type { Deps } from "../operations/context.ts";
import { killWorker } from "../operations/kill.ts";
import { readAnswer } from "../operations/read.ts";
import { sendPrompt } from "../operations/send.ts";
import { spawnWorker } from "../operations/spawn.ts";
import { statusOf } from "../operations/status.ts";
import { waitForTurn } from "../operations/wait.ts";
import { argsFromSchema, collectFlag, inputFromArgs } from "./cli/args.ts";

export type PrintIo = {
  readonly deps: Deps;
  readonly out: (text: string) => void;
  readonly err: (text: string) => void;
  readonly readStdin: () => Promise<string>;
  readonly stdinIsTty: boolean;
};

/**
 * `umbel -p [PROMPT]`: one turn through the interactive TUI, printed like `claude -p`. The prompt is
 * argv first, then stdin. An anonymous worker is purged on every exit path (SIGINT included: the
 * signal aborts the operations, and the finally below runs).
 */
export async function runPrint(rawArgs: readonly string[], io: PrintIo): Promise<number> {
  const argv = rawArgs.filter((a) => a !== "-p" && a !== "--print");
  const defs = { ...argsFromSchema(PrintInput), prompt: { type: "positional" as const, required: false } };
  const args = parseArgs(argv, defs) as Record<string, unknown> & { _: string[] };
  const fromArgv = args._.join(" ");
  const fromStdin = io.stdinIsTty ? "" : (await io.readStdin()).replace(/\n$/, "");
  const prompt = [fromArgv, fromStdin].filter((p) => p !== "").join("\n");
  if (prompt.trim() === "") throw new UsageError("no prompt: give it as an argument or on stdin");
  const raw: Record<string, unknown> = { ...args, prompt };
  if (collectFlag(argv, "allowedTools").length === 0 && collectFlag(argv, "allowed-tools").length === 0)
    delete raw.allowedTools;
  const input = inputFromArgs(PrintInput, raw, argv);
  if (input.name && input.resume && input.name !== input.resume) {
    throw new UsageError("--name and --resume name different workers");
  }
  const started = io.deps.clock.now();
  const named = input.resume ?? input.name;
  const name = named ?? `p-${crypto.randomUUID().slice(0, 8)}`;
  const anonymous = named === undefined;
  try {
    if (!named || !(await io.deps.store.exists(named))) {
      if (input.resume) await statusOf(io.deps, input.resume); // throws "no worker named …"
      await spawnWorker(io.deps, {
        name,
        provider: input.provider,
        cwd: input.cwd,
        model: input.model,
        permissionMode: input.permissionMode,
        allowedTools: input.allowedTools,
        env: input.env,
      } as Parameters<typeof spawnWorker>[1]);
    } else {
      const status = await statusOf(io.deps, name);
      if (status.state === "dead" || status.state === "killed") {
        throw new WorkerDeadError(
          `worker ${name} is ${status.state}${status.exit ? ` (exit ${status.exit.exitCode})` : ""}; kill --purge it to start over`,
          {
            name,
            exit: status.exit,
          },
        );
      }
    }
    const sent = await sendPrompt(io.deps, { name, prompt: input.prompt });
    const outcome = await waitForTurn(io.deps, {
      name,
      after: sent.baseline,
      ...(input.timeout ? { timeout: input.timeout } : {}),
    });
    const answer =
      outcome.reason === "stop" || outcome.reason === "provider-error"
        ? await readAnswer(io.deps, { name, after: sent.baseline })
        : null;
    const result = buildPrintResult({
      outcome,
      text: answer?.text ?? "",
      sessionId: answer?.sessionId ?? null,
      durationMs: io.deps.clock.now() - started,
      assistantMessages: answer?.assistantMessages ?? 0,
      provider: input.provider,
    });
    if (input.outputFormat === "json") io.out(`${JSON.stringify(result)}\n`);
    else if (outcome.reason === "stop")
      io.out(result.result.endsWith("\n") ? result.result : `${result.result}\n`);
    if (outcome.reason !== "stop") io.err(`umbel: ${describeFailure(outcome, answer?.text ?? "")}\n`);
    return outcome.exitCode;
  } finally {
    if (anonymous)
      await killWorker({ ...io.deps, signal: undefined }, { name, purge: true }).catch(() => undefined);
  }
}
