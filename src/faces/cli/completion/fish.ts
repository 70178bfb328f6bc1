import type { FlagInfo } from "../flags.ts";
import type { CompletionCommand } from "./command.ts";
import { argumentPlaces, completionCommands, shortText, valueFlags } from "./model.ts";

/**
 * `umbel completion fish > ~/.config/fish/completions/umbel.fish`. Each command's flags apply once
 * it is on the line; each argument's candidates at its place (flags and their values not counted).
 */
export function renderFish(version: string): string {
  const commands = completionCommands();
  const lines = [
    `# fish completion for umbel ${version}: umbel completion fish > ~/.config/fish/completions/umbel.fish`,
    "# Generated from umbel's verb table and schemas; regenerate after an upgrade.",
    "function __umbel_workers; command umbel ls 2>/dev/null | awk 'NR > 1 { print $1 }'; end",
    "# How many arguments the command has so far (flags and the values of the flags named do not count).",
    "function __umbel_args",
    "    set -l tokens (commandline -opc)",
    "    set -l n 0",
    "    for i in (seq 3 (count $tokens))",
    "        string match -q -- '-*' $tokens[$i]; and continue",
    "        contains -- $tokens[(math $i - 1)] $argv; and continue",
    "        set n (math $n + 1)",
    "    end",
    "    echo $n",
    "end",
    "complete -c umbel -f",
    ...commands
      .filter((c) => c.word)
      .map(
        (c) => `complete -c umbel -n __fish_use_subcommand -a ${c.name} -d ${quote(shortText(c.summary))}`,
      ),
    ...commands.flatMap((c) => c.flags.map((f) => flagLine(c, f))),
    ...commands.flatMap(argumentLines),
  ];
  return `${lines.join("\n")}\n`;
}

function seen(c: CompletionCommand): string {
  return `__fish_seen_subcommand_from ${[c.name, ...c.aliases].join(" ")}`;
}

function flagLine(c: CompletionCommand, f: FlagInfo): string {
  const parts = [`complete -c umbel -n ${quote(seen(c))}`];
  if (f.alias) parts.push(`-s ${f.alias}`);
  parts.push(`-l ${f.flag.slice(2)}`);
  if (f.choices.length > 0) parts.push(`-x -a ${quote(f.choices.join(" "))}`);
  else if (f.completes === "dir") parts.push("-x -a '(__fish_complete_directories)'");
  else if (f.completes === "file") parts.push("-r -F");
  else if (f.hint !== null) parts.push("-x");
  parts.push(`-d ${quote(shortText(f.description))}`);
  return parts.join(" ");
}

function argumentLines(c: CompletionCommand): string[] {
  return argumentPlaces(c).flatMap(({ place, argument }) => {
    const at = place === "*" ? `-ge ${c.args.length - 1}` : `-eq ${place}`;
    const when = quote(`${seen(c)}; and test (__umbel_args ${valueFlags(c).join(" ")}) ${at}`);
    if (argument.kind === "worker") return [`complete -c umbel -n ${when} -a '(__umbel_workers)' -d worker`];
    if (argument.kind === "workflow") return [`complete -c umbel -n ${when} -F`];
    if (argument.kind === "choices")
      return [`complete -c umbel -n ${when} -a ${quote(argument.values.join(" "))}`];
    return [];
  });
}

/** A single-quoted fish string (backslash and quote escaped). */
function quote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}
