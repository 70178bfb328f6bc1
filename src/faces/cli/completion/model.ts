import type { z } from "zod";
import { AcpFlags } from "../../../core/acp/session.ts";
import type { Meaning } from "../../../core/fleet/answer.ts";
import { RunWorkflowInput } from "../../../core/workflow/schema.ts";
import { VERBS } from "../../verbs/table.ts";
import type { Verb } from "../../verbs/verb.ts";
import { type FlagInfo, flagsOf, flagsOfSchema, JSON_FLAG, positionalsOf } from "../flags.ts";
import type { Argument, CompletionCommand } from "./command.ts";
import { printCommands } from "./print.ts";

/**
 * What shell completion offers, from the verb table and the zod schemas (the same objects the
 * parser, --help and the MCP schemas read): every command, its flags and their enum values, and
 * what each of its arguments is. The scripts (bash.ts, zsh.ts, fish.ts) only spell this out.
 */

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

const HELP_FLAG: FlagInfo = { ...JSON_FLAG, flag: "--help", description: "Show this command's help" };

/** answer's CHOICE is free text (an option's number or label too); these are its meanings. */
const ANSWER_MEANINGS = ["allow", "always", "deny"] as const satisfies readonly Meaning[];

export function completionCommands(): CompletionCommand[] {
  const verbs = VERBS.flatMap((verb): CompletionCommand[] => {
    if (!verb.cli) return [];
    const positionals = positionalsOf(verb);
    return [
      {
        name: verb.name,
        aliases: [],
        word: true,
        summary: verb.cli.summary,
        flags: [...flagsOf(verb), HELP_FLAG],
        args: (verb.cli.positionals ?? []).map((key, i) =>
          positionals[i]?.worker ? WORKER : argumentOf(verb, key),
        ),
        rest: positionals.at(-1)?.rest ?? false,
      },
    ];
  });
  const schema: FlagInfo = { ...JSON_FLAG, flag: "--schema", description: "Print the file's JSON Schema" };
  const face = (name: string, summary: string, flags: FlagInfo[], args: Argument[]): CompletionCommand => ({
    name,
    aliases: [],
    word: true,
    summary,
    flags,
    args,
    rest: false,
  });
  return [
    ...verbs,
    face(
      "run",
      "run a workflow file",
      [...flagsOfSchema(RunWorkflowInput, ["file"]), schema, JSON_FLAG, HELP_FLAG],
      [{ kind: "workflow" }],
    ),
    face("mcp", "serve every command as an MCP tool over stdio", [HELP_FLAG], []),
    face("acp", "serve workers as an ACP agent over stdio", [...flagsOfSchema(AcpFlags, []), HELP_FLAG], []),
    face("completion", "print a shell completion script", [], [{ kind: "choices", values: SHELLS }]),
    ...printCommands(),
  ];
}

const WORKER: Argument = { kind: "worker" };

/** An enum's values (pool's action), answer's meanings; else nothing in particular. */
function argumentOf(verb: Verb, key: string): Argument {
  if (verb.name === "answer" && key === "choice") return { kind: "choices", values: ANSWER_MEANINGS };
  let field = verb.input.shape[key] as z.ZodType | undefined;
  while (field && (field.def.type === "optional" || field.def.type === "default"))
    field = (field.def as { innerType?: z.ZodType }).innerType;
  const options = (field as { options?: readonly unknown[] } | undefined)?.options;
  return field?.def.type === "enum" && options ? { kind: "choices", values: options.map(String) } : NONE;
}

const NONE: Argument = { kind: "none" };

/** Flags that take a value, as one space-separated word list (the scripts skip their values). */
export function valueFlags(command: CompletionCommand): string[] {
  return command.flags.flatMap((f) => (f.hint === null ? [] : f.alias ? [f.flag, `-${f.alias}`] : [f.flag]));
}

/** A one-line description for shells that show one beside each candidate. */
export function shortText(text: string, max = 70): string {
  const first = text.split(/(?<=\.)\s|;\s/)[0] ?? text;
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}

/** The arguments' cases of one command: the place (0, 1, …) each completes at, `*` for the rest. */
export function argumentPlaces(c: CompletionCommand): { place: string; argument: Argument }[] {
  const places = c.args.map((argument, i) => ({
    place: c.rest && i === c.args.length - 1 ? "*" : String(i),
    argument,
  }));
  return places.filter((p) => p.argument.kind !== "none");
}
