import { listProviders, providerNames } from "../../core/providers/registry.ts";
import { VERBS } from "../verbs/table.ts";

/** `umbel --help`: the command list is the verb table's, plus the faces that are not verbs. */

const OTHER_COMMANDS: readonly [string, string][] = [
  ["mcp", "serve every command as a tool to an MCP host, over stdio (docs/mcp.md)"],
  ["acp [flags]", "serve workers as an Agent Client Protocol agent to an editor, over stdio (docs/acp.md)"],
  ["run FILE", "run a workflow: prompts over workers as a DAG (--dry-run, --resume ID, --schema)"],
  ["completion SHELL", "print a completion script for bash, zsh or fish"],
];

export function renderHelp(version: string): string {
  const commands: [string, string][] = [
    ...VERBS.flatMap((v): [string, string][] =>
      v.cli ? [[`${v.name} ${v.cli.usage}`.trim(), v.cli.summary]] : [],
    ),
    ...OTHER_COMMANDS,
  ];
  const width = Math.max(...commands.map(([usage]) => usage.length)) + 2;
  const lines = commands.map(([usage, summary]) => `  ${usage.padEnd(width)}${summary}`);
  return `umbel ${version} — drive interactive agent CLIs (${providerNames()}) from programs, inside tmux

Usage:
  umbel -p [PROMPT] [flags]          one turn, printed like claude -p (prompt from argv and/or stdin)
  umbel -p --dialect gemini [flags]  … with gemini -p's flags and output (UMBEL_DIALECT sets the default)
  umbel exec [PROMPT] [flags]        … with codex exec's flags and output (exec resume ID|--last too)
  umbel <command> [args] [--json]

Commands:
${lines.join("\n")}

Exit codes: 0 ok · 1 failure · 2 usage · 3 no such worker · 4 conflict (name taken, busy, a prompt gone) · 5 no turn to wait for · 70 internal
  127 a program umbel needs is missing or too old (the agent CLI, tmux 3.3+, git, sh): the message says how to install it
  wait/-p: 120 limited · 121 rejected · 122 provider-error · 123 idle · 124 timeout · 125 dead · 126 input · 130 aborted
Provider: --provider ${listProviders()
    .map((p) => p.id)
    .join("|")}; none given: UMBEL_PROVIDER, else config.toml's provider,
  else the dialect's own CLI (exec: codex, --dialect gemini: gemini; otherwise claude).
Durations: 90s, 10m, 1h30m, 1500ms or seconds; at most 168h. -p after a command is its flag, never a turn.
State: $UMBEL_HOME (default ~/.umbel). umbel <command> --help (or umbel help <command>): its flags.
Trace: --trace (or UMBEL_TRACE=1) prints a timeline of the run to stderr.
`;
}
