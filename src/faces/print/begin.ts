import { resolve } from "node:path";
import { UsageError } from "../../core/errors.ts";
import { checkPrintInput, PrintInput, parseStreamInput } from "../../core/print-input.ts";
import { getProvider } from "../../core/providers/registry.ts";
import { quoteArg } from "../../core/quote.ts";
import { isJsonObjectText } from "../../core/schemas.ts";
import { readJsonOrFile } from "../../operations/json-or-file.ts";
import { formatIssues } from "../cli/args.ts";
import type { parsePrintArgs } from "./args.ts";
import type { PrintIo } from "./run.ts";
import { acquireWorker, type PrintWorker, releaseWorker } from "./worker.ts";

/**
 * stdin this long after the start is read before the worker starts (`echo hi | umbel -p`: the
 * order of checks is as ever, nothing is made for a blank prompt). Still open after that, it is a
 * producer that is still writing, and an anonymous worker's TUI boots while it does (its ~1 s start
 * overlaps the producer's); a blank or broken prompt then unwinds that worker (exit 2 all the same).
 */
const STDIN_GRACE_MS = 25;
/** Stands for the prompt while stdin is still coming: every other flag is checked with it. */
const PROVISIONAL = "(stdin)";

export type Begun = {
  readonly input: PrintInput;
  readonly prompts: string[];
  readonly started: number;
  /** The worker already started while stdin was read, or null: the caller acquires it. */
  readonly worker: PrintWorker | null;
};

type Args = ReturnType<typeof parsePrintArgs>;

export async function beginPrint(args: Args, io: PrintIo): Promise<Begun> {
  const stdin = io.stdinIsTty ? Promise.resolve("") : io.readStdin();
  const early = await settledWithin(stdin, STDIN_GRACE_MS, io);
  if (early !== null || !isAnonymous(args)) {
    const input = await readInput(args, io, early ?? (await stdin));
    return { input, prompts: promptsOf(input), started: io.deps.clock.now(), worker: null };
  }
  const provisional = await readInput(args, io, PROVISIONAL);
  const started = io.deps.clock.now();
  const stop = new AbortController();
  const signal = io.deps.signal ? AbortSignal.any([io.deps.signal, stop.signal]) : stop.signal;
  const acquiring = acquireWorker({ ...io.deps, signal }, provisional, io.err);
  acquiring.catch(() => undefined); // awaited below; a failure meanwhile is not an unhandled one
  try {
    const text = await stdin;
    io.deps.trace.mark(`stdin: ${text.length} chars, read while the worker started`);
    const input = await readInput(args, io, text);
    return { input, prompts: promptsOf(input), started, worker: await acquiring };
  } catch (error) {
    stop.abort();
    await releaseWorker(io.deps, await acquiring.catch(() => null));
    throw error;
  }
}

async function readInput(args: Args, io: PrintIo, stdin: string): Promise<PrintInput> {
  const streamInput = args.raw.inputFormat === "stream-json";
  if (streamInput && args.argvPrompt !== "")
    throw new UsageError("a prompt argument cannot be combined with --input-format stream-json");
  const prompt = streamInput
    ? stdin
    : [args.argvPrompt, stdin.replace(/\n$/, "")].filter((p) => p !== "").join("\n");
  const raw: Record<string, unknown> = { ...args.raw, prompt };
  if (args.settings !== undefined) raw.settings = await readSettings(io, args.settings, args.raw.cwd);
  const parsed = PrintInput.safeParse(raw);
  if (!parsed.success) throw new UsageError(formatIssues(parsed.error), { issues: parsed.error.issues });
  checkPrintInput(parsed.data);
  refuseUntracked(parsed.data);
  return parsed.data;
}

function promptsOf(input: PrintInput): string[] {
  return input.inputFormat === "stream-json" ? parseStreamInput(input.prompt) : [input.prompt];
}

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

/** claude's --settings: JSON text, or else a file path (resolved where the worker runs). */
async function readSettings(io: PrintIo, value: string, cwd: unknown): Promise<string> {
  const here = io.deps.cwd;
  const { path, text } = await readJsonOrFile(
    io.deps.files,
    value,
    typeof cwd === "string" ? resolve(here, cwd) : here,
  );
  if (path === null) return value;
  if (text === null) throw new UsageError(`Settings file not found: ${quoteArg(path, 200)}`, { path });
  if (!isJsonObjectText(text))
    throw new UsageError(`--settings ${quoteArg(path, 200)}: not a JSON object`, { path });
  return text;
}

/** A worker only this run uses (no --name, --resume or --continue): the one whose start may overlap stdin. */
function isAnonymous(args: Args): boolean {
  return args.raw.name === undefined && args.raw.resume === undefined && args.raw.continue !== true;
}

/** The text when it is all there within `ms`, else null (still coming). */
async function settledWithin(text: Promise<string>, ms: number, io: PrintIo): Promise<string | null> {
  const late = Symbol("late");
  const stop = new AbortController();
  const timer = io.deps.clock.sleep(ms, stop.signal).then(() => late);
  const first = await Promise.race([text, timer]);
  stop.abort();
  return first === late ? null : (first as string);
}
