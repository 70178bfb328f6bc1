import { RunWorkflowInput } from "../../../core/workflow/schema.ts";
import { VERBS } from "../../verbs/table.ts";
import { type FlagInfo, flagsOf, flagsOfSchema, JSON_FLAG, positionalsOf } from "../flags.ts";

/**
 * What shell completion offers, from the verb table and the zod schemas (the same objects the
 * parser, --help and the MCP schemas read): every command, its flags and their enum values, and
 * what its first argument is. The scripts (bash.ts, zsh.ts, fish.ts) only spell this out.
 */

export type Argument = "worker" | "workflow" | "shell" | "none";

export type CompletionCommand = {
  readonly name: string;
  readonly summary: string;
  readonly flags: readonly FlagInfo[];
  /** The first positional: a worker of this state root (`umbel ls`), a workflow file, a shell. */
  readonly argument: Argument;
};

export const SHELLS = ["bash", "zsh", "fish"] as const;
export type Shell = (typeof SHELLS)[number];

const HELP_FLAG: FlagInfo = { ...JSON_FLAG, flag: "--help", description: "Show this command's help" };

export function completionCommands(): CompletionCommand[] {
  const verbs = VERBS.flatMap((verb): CompletionCommand[] => {
    if (!verb.cli) return [];
    const first = positionalsOf(verb)[0];
    return [
      {
        name: verb.name,
        summary: verb.cli.summary,
        flags: [...flagsOf(verb), HELP_FLAG],
        argument: first?.worker ? "worker" : "none",
      },
    ];
  });
  const schema: FlagInfo = { ...JSON_FLAG, flag: "--schema", description: "Print the file's JSON Schema" };
  return [
    ...verbs,
    {
      name: "run",
      summary: "run a workflow file",
      flags: [...flagsOfSchema(RunWorkflowInput, ["file"]), schema, JSON_FLAG, HELP_FLAG],
      argument: "workflow",
    },
    {
      name: "mcp",
      summary: "serve every command as an MCP tool over stdio",
      flags: [HELP_FLAG],
      argument: "none",
    },
    { name: "completion", summary: "print a shell completion script", flags: [], argument: "shell" },
  ];
}

/** Flags that take a value, as one space-separated word list (the scripts skip their values). */
export function valueFlags(command: CompletionCommand): string[] {
  return command.flags.filter((f) => f.hint !== null).map((f) => f.flag);
}

/** A one-line description for shells that show one beside each candidate. */
export function shortText(text: string, max = 70): string {
  const first = text.split(/(?<=\.)\s|;\s/)[0] ?? text;
  return first.length > max ? `${first.slice(0, max - 1)}…` : first;
}
