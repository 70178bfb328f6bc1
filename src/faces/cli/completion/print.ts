import { Dialect } from "../../../core/dialects/dialect.ts";
import { PrintInput } from "../../../core/print/input.ts";
import { PRINT_FLAGS } from "../../print/args.ts";
import { COLOR_MODES, EXEC_FLAGS, SANDBOX_MODES } from "../../print/args-codex.ts";
import { kebab } from "../args.ts";
import { type FlagInfo, flagsOfSchema } from "../flags.ts";
import type { CompletionCommand } from "./command.ts";

/**
 * The print faces as completion commands: `umbel -p` (claude -p's flags) and `umbel exec` (codex
 * exec's). Their flags are the tables their argv parsers read (args.ts, args-codex.ts); what a flag
 * means, its enum values and whether it names a path come from PrintInput, the schema both parse
 * into, where the flag is one of its fields, and from the table below where it is the face's own.
 */
export function printCommands(): CompletionCommand[] {
  return [
    {
      name: "-p",
      aliases: ["--print"],
      word: false,
      summary: "one turn, printed like claude -p",
      flags: [...flagsOfSpecs(PRINT_FLAGS), DIALECT],
      args: [],
      rest: false,
    },
    {
      name: "exec",
      aliases: [],
      word: true,
      summary: "one turn, printed like codex exec",
      flags: flagsOfSpecs(EXEC_FLAGS),
      args: [{ kind: "choices", values: ["resume"] }],
      rest: false,
    },
  ];
}

type Own = Partial<Pick<FlagInfo, "description" | "choices" | "completes">>;

/** Flags of a face's own, by the key its parser gives them. */
const OWN: Readonly<Record<string, Own>> = {
  print: { description: "Print one turn and exit" },
  help: { description: "Show this command's help" },
  skipPermissions: { description: "The same as --permission-mode bypassPermissions" },
  cd: { description: "Run there (default: the current directory)", completes: "dir" },
  sandbox: { description: "read-only (umbel's plan mode) or workspace-write", choices: SANDBOX_MODES },
  outputLastMessage: { description: "Write the final message to this file", completes: "file" },
  outputSchema: {
    description: "The final message is an object matching this JSON Schema",
    completes: "file",
  },
  color: { description: "Accepted; umbel prints no colour", choices: COLOR_MODES },
  json: { description: "One event a line, as codex exec --json" },
  skipGitRepoCheck: { description: "Accepted; umbel needs no git repository" },
  bypass: { description: "Never ask, no sandbox (umbel's bypassPermissions)" },
  fullAuto: { description: "workspace-write with approvals on request" },
  approveForMe: { description: "Escalations go to codex's reviewer (umbel's auto mode)" },
  last: { description: "resume --last: the last conversation here" },
};

const DIALECT: FlagInfo = {
  flag: "--dialect",
  alias: null,
  hint: "D",
  description: Dialect.description ?? "",
  choices: Dialect.options,
  defaultValue: "claude",
  completes: "none",
};

const FIELDS = new Map(flagsOfSchema(PrintInput, ["prompt"]).map((f) => [f.flag, f]));

/** One FlagInfo per long spelling; a one-letter spelling is the alias of its key's first long one. */
function flagsOfSpecs(specs: Readonly<Record<string, { key: string; kind: string }>>): FlagInfo[] {
  const byKey = new Map<string, string[]>();
  for (const [flag, spec] of Object.entries(specs))
    byKey.set(spec.key, [...(byKey.get(spec.key) ?? []), flag]);
  return [...byKey.entries()].flatMap(([key, spellings]) => {
    const kind = specs[spellings[0] ?? ""]?.kind ?? "flag";
    const short = spellings.find((s) => !s.startsWith("--"))?.slice(1) ?? null;
    const field = FIELDS.get(`--${kebab(key)}`);
    const own = OWN[key] ?? {};
    return spellings
      .filter((s) => s.startsWith("--"))
      .map(
        (flag, i): FlagInfo => ({
          flag,
          alias: i === 0 ? short : null,
          hint: kind === "flag" ? null : (field?.hint ?? key.toUpperCase()),
          description: own.description ?? field?.description ?? "",
          choices: own.choices ?? field?.choices ?? [],
          defaultValue: field?.defaultValue ?? null,
          completes: own.completes ?? field?.completes ?? "none",
        }),
      );
  });
}
