import { type ArgsDef, type CommandDef, defineCommand } from "citty";
import type { z } from "zod";
import { UsageError } from "../../core/errors.ts";
import type { Deps } from "../../core/ports.ts";
import type { Verb } from "../verbs/verb.ts";
import { argsFromSchema, inputFromArgs, kebab, rejectUnknownFlags } from "./args.ts";

/** What a verb needs from the process: the operations' deps and the standard streams. */
export type CliIo = {
  readonly deps: Deps;
  readonly out: (text: string) => void;
  /** stderr: notes beside a result (CliSpec.notes). */
  readonly err: (text: string) => void;
  readonly readStdin: () => Promise<string>;
  /** stdin as a stream, for `--stdin-json` (faces/cli/stdin-json.ts). */
  readonly stdinStream?: () => ReadableStream<Uint8Array>;
  readonly stdinIsTty: boolean;
  readonly stdoutIsTty: boolean;
  /** The terminal's width, when stdout is one (help wraps to it). */
  readonly columns?: number | undefined;
};

const JSON_FLAG: ArgsDef = { json: { type: "boolean", description: "Print the result as JSON" } };

/**
 * The citty command of a verb in the table: flags from its input schema, its positionals, and
 * `--json`. Its run returns the process exit code the result means. Only the verb run is built: a
 * run uses one verb, and building all 14 (flags from each zod schema) cost ~5 ms of every start.
 * Null for a verb that is not on the CLI.
 */
export function commandOfVerb(verb: Verb): CommandDef | null {
  const cli = verb.cli;
  if (!cli) return null;
  const defs = argsOfVerb(verb, cli);
  return defineCommand({
    meta: { name: verb.name, description: verb.description },
    args: defs,
    run: async ({ args, rawArgs, data }) => {
      rejectUnknownFlags(rawArgs, defs);
      const io = data as CliIo;
      const json = args.json === true;
      const raw = { ...(args as Record<string, unknown>) };
      const rest = restPositional(verb, (args._ as string[] | undefined) ?? []);
      if (rest) raw[rest.key] = rest.values;
      if (cli.stdin && (raw[cli.stdin] === undefined || raw[cli.stdin] === "-") && !io.stdinIsTty)
        raw[cli.stdin] = await io.readStdin();
      const input = inputFromArgs(verb.input, raw, rawArgs, cli.positionals);
      // The trace's line between a verb's start-up (modules, schemas, argv) and its own work.
      io.deps.trace.mark(`verb ${verb.name}: input parsed, running`);
      return runParsed(verb, input, io, json);
    },
  });
}

/**
 * A verb's run on its parsed input, its notes on stderr, its result printed; returns the exit code.
 * `updates`: where its progress goes when it has no stream of its own (a host's wait for its caller).
 */
export async function runParsed(
  verb: Verb,
  input: unknown,
  io: CliIo,
  json: boolean,
  updates?: (update: unknown) => void,
): Promise<number> {
  const cli = verb.cli;
  const stream = cli?.stream;
  const progress = stream
    ? (update: unknown) => io.out(json ? `${JSON.stringify(stream.json(update))}\n` : stream.text(update))
    : updates;
  const result = await verb.run(input, {
    deps: io.deps,
    progress,
    terminal: io.stdinIsTty && io.stdoutIsTty,
  });
  const notes = cli?.notes?.(result);
  if (notes) io.err(notes);
  if (!stream) print(io, json, verb, result);
  return verb.exitCode(result);
}

export function unknownVerb(name: string): never {
  throw new UsageError(`unknown command: ${name} (see umbel --help)`, { command: name });
}

function print(io: CliIo, json: boolean, verb: Verb, result: unknown): void {
  if (json) {
    const value = verb.json(result);
    if (value !== undefined) io.out(`${JSON.stringify(value)}\n`);
  } else io.out(io.stdoutIsTty && verb.cli?.terminal ? verb.cli.terminal(result) : verb.text(result));
}

/** Flags from the input schema, the positionals (required ones marked), short aliases, and --json. */
export function argsOfVerb(verb: Verb, cli: NonNullable<Verb["cli"]>): ArgsDef {
  const defs = argsFromSchema(verb.input, cli.positionals);
  for (const key of cli.positionals ?? []) {
    // citty names a missing NAME (and --help shows <NAME>); a field stdin can fill is left to zod.
    const def = defs[key];
    const field = verb.input.shape[key] as z.ZodType | undefined;
    if (def && key !== cli.stdin && field && !field.safeParse(undefined).success)
      defs[key] = { ...def, required: true };
  }
  for (const [field, letter] of Object.entries(cli.aliases ?? {})) {
    const def = defs[kebab(field)];
    if (def) defs[kebab(field)] = { ...def, alias: [letter] };
  }
  return { ...defs, ...JSON_FLAG };
}

/** A list field taken by position (keys NAME K…, wait --any A B C) gets every argument from its place on. */
function restPositional(verb: Verb, given: readonly string[]): { key: string; values: string[] } | null {
  const positionals = verb.cli?.positionals ?? [];
  const last = positionals.length - 1;
  const key = positionals[last];
  const field = key === undefined ? undefined : (verb.input.shape[key] as z.ZodType | undefined);
  // An optional list too (wait NAME [NAMES…]).
  const list = field?.def.type === "optional" ? (field.def as { innerType?: z.ZodType }).innerType : field;
  if (key === undefined || list?.def.type !== "array") return null;
  return { key, values: given.slice(last) };
}
