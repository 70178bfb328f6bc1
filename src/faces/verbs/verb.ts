import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import type { z } from "zod";
import type { Deps } from "../../core/ports.ts";
import type { Report } from "../mcp/progress.ts";

/**
 * A verb, declared once: its schemas, the operation it runs, how its answer reads and what exit code
 * it means. The CLI (faces/cli/commands.ts) and the MCP server (faces/mcp/tools.ts) are generated
 * from the table of these (table.ts), so adding a verb is one entry plus its operation.
 */

export type AnyObject = z.ZodObject<z.ZodRawShape>;

/** What a verb's run gets from the face that calls it. */
export type VerbContext<P = unknown> = {
  readonly deps: Deps;
  /** Updates while it runs (wait's turn state, each event logs sees), when the face wants them. */
  readonly progress?: ((update: P) => void) | undefined;
  /** stdin and stdout are a terminal (attach needs one; never over MCP). */
  readonly terminal: boolean;
};

type CliSpec<R, P> = {
  /** `umbel --help`'s line: the arguments after the verb, and a short summary. */
  readonly usage: string;
  readonly summary: string;
  /** Fields taken by position, in order; an array field last takes every remaining argument. */
  readonly positionals?: readonly string[];
  /** This field is read from stdin when it is absent or `-` and stdin is not a terminal. */
  readonly stdin?: string;
  /** One or two command lines for `--help` (each starts `umbel <verb>`). */
  readonly examples: readonly string[];
  /** Short flags: field → letter (`{follow: "f"}` makes `-f` mean `--follow`). */
  readonly aliases?: Readonly<Record<string, string>>;
  /** What a person reads when stdout is a terminal (default: `text`, which a pipe always gets). */
  terminal?(result: R): string;
  /** What `--json` prints (default: the result); undefined prints nothing. */
  json?(result: R): unknown;
  /** Lines for stderr beside the result, with or without --json (spawn: each dialog it answered). */
  notes?(result: R): string;
  /** A paragraph `--help` prints under the description (what a verb does that its flags do not say). */
  readonly details?: string;
  /** Prints each progress update as it comes (text, or one JSON line each); the result is not printed. */
  readonly stream?: { text(update: P): string; json(update: P): unknown };
};

type McpSpec<R, P, MI extends AnyObject, D> = {
  readonly title: string;
  readonly annotations: ToolAnnotations;
  /** The tool's input when it has fields of its own beside the verb's (umbel_read's bound). */
  readonly input?: MI;
  /** The tool's output schema when `present` reshapes the result. */
  readonly output?: AnyObject;
  /** The structured content, from the verb's result and the tool's whole input (default: the result). */
  present?(result: R, input: z.output<MI>): D;
  /** The readable text beside it (default: the CLI's text). */
  text?(data: D): string;
  /** Turns the client's progress notifications into the run's progress sink. */
  progress?(report: Report | undefined, input: z.output<MI>): ((update: P) => void) | undefined;
};

type VerbSpec<I extends AnyObject, O extends AnyObject, R, P, MI extends AnyObject, D> = {
  readonly name: string;
  /** The verb's `--help` description. */
  readonly description: string;
  readonly input: I;
  readonly output: O;
  run(input: z.output<I>, ctx: VerbContext<P>): Promise<R>;
  /** What the CLI prints (pure). */
  text(result: R): string;
  /** The process exit code the result means (default 0). */
  exitCode?(result: R): number;
  /** false: not on the CLI. */
  readonly cli: CliSpec<R, P> | false;
  /** false: not an MCP tool. */
  readonly mcp: McpSpec<R, P, MI, D> | false;
};

/** A verb as the faces see it: every type erased to what a generic face can hold. */
export type Verb = {
  readonly name: string;
  readonly description: string;
  readonly input: AnyObject;
  readonly output: AnyObject;
  run(input: unknown, ctx: VerbContext): Promise<unknown>;
  text(result: unknown): string;
  json(result: unknown): unknown;
  exitCode(result: unknown): number;
  /** null: not on the CLI. */
  readonly cli: CliSpec<unknown, unknown> | null;
  /** null: not an MCP tool. */
  readonly mcp: McpSpec<unknown, unknown, AnyObject, unknown> | null;
};

/** MCP hints for verbs that only look (status, read …): never change anything, safe to repeat. */
export const LOOKS = { readOnlyHint: true, openWorldHint: false } as const satisfies ToolAnnotations;

/**
 * Declares a verb. `R` must be a value of the output schema, so what the CLI prints with --json and
 * what an MCP client checks against `outputSchema` cannot drift apart.
 */
export function defineVerb<
  I extends AnyObject,
  O extends AnyObject,
  R extends z.output<O>,
  P = never,
  MI extends AnyObject = I,
  D = R,
>(spec: VerbSpec<I, O, R, P, MI, D>): Verb {
  const cli = spec.cli || null;
  return {
    ...(spec as unknown as Verb),
    cli: cli as Verb["cli"],
    mcp: (spec.mcp || null) as Verb["mcp"],
    json: (result) => (cli?.json ? cli.json(result as R) : result),
    exitCode: (result) => spec.exitCode?.(result as R) ?? 0,
  };
}
