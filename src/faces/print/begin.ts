import type { PrintInput } from "../../core/print/input.ts";
import type { PrintIo } from "./io.ts";
import { acquireWorker, type PrintWorker, releaseWorker } from "./worker.ts";

/**
 * stdin this long after the start is read before the worker starts (`echo hi | umbel -p`: the
 * order of checks is as ever, nothing is made for a blank prompt). Still open after that, it is a
 * producer that is still writing, and an anonymous worker's TUI boots while it does (its ~1 s start
 * overlaps the producer's); a blank or broken prompt then unwinds that worker (exit 2 all the same).
 */
const STDIN_GRACE_MS = 25;
/** Stands for stdin while it is still coming: every other flag is checked with it. */
const PROVISIONAL = "(stdin)";

export type Begun = {
  readonly input: PrintInput;
  /** The turns' prompts: one, or one per stdin line with claude's --input-format stream-json. */
  readonly prompts: string[];
  readonly started: number;
  /** The worker already started while stdin was read, or null: the caller acquires it. */
  readonly worker: PrintWorker | null;
};

/**
 * A dialect's PrintInput from stdin's text: the prompt joined as its CLI joins it, flag files read,
 * the input parsed and checked. Called with a stand-in for stdin first while a producer still writes.
 */
export type InputReader = (stdin: string) => Promise<PrintInput>;

/**
 * stdin, and with a producer still writing it, an anonymous worker starting meanwhile (every
 * dialect: claude -p, gemini -p and codex exec read their input through this).
 */
export async function beginPrint(
  io: PrintIo,
  anonymous: boolean,
  read: InputReader,
  split: (input: PrintInput) => string[] = (input) => [input.prompt],
): Promise<Begun> {
  const stdin = io.stdinIsTty ? Promise.resolve("") : io.readStdin();
  const early = await settledWithin(stdin, STDIN_GRACE_MS, io);
  if (early !== null || !anonymous) {
    const input = await read(early ?? (await stdin));
    return { input, prompts: split(input), started: io.deps.clock.now(), worker: null };
  }
  const provisional = await read(PROVISIONAL);
  const started = io.deps.clock.now();
  const stop = new AbortController();
  const signal = io.deps.signal ? AbortSignal.any([io.deps.signal, stop.signal]) : stop.signal;
  const acquiring = acquireWorker({ ...io.deps, signal }, provisional, io.err);
  acquiring.catch(() => undefined); // awaited below; a failure meanwhile is not an unhandled one
  try {
    const text = await stdin;
    io.deps.trace.mark(`stdin: ${text.length} chars, read while the worker started`);
    const input = await read(text);
    return { input, prompts: split(input), started, worker: await acquiring };
  } catch (error) {
    stop.abort();
    await releaseWorker(io.deps, await acquiring.catch(() => null));
    throw error;
  }
}

/**
 * A worker only this run uses (no --name, --resume or --continue in the dialect's raw PrintInput
 * fields): the one whose start may overlap stdin.
 */
export function isAnonymous(raw: Readonly<Record<string, unknown>>): boolean {
  return raw.name === undefined && raw.resume === undefined && raw.continue !== true;
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
