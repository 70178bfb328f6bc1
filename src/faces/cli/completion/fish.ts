import type { FlagInfo } from "../flags.ts";
import { type CompletionCommand, completionCommands, SHELLS, shortText, valueFlags } from "./model.ts";

/**
 * `umbel completion fish > ~/.config/fish/completions/umbel.fish`. Each command's flags apply once
 * it is on the line; worker names come from `umbel ls` while no argument has been given yet.
 */
export function renderFish(version: string): string {
  const commands = completionCommands();
  const lines = [
    `# fish completion for umbel ${version}: umbel completion fish > ~/.config/fish/completions/umbel.fish`,
    "# Generated from umbel's verb table and schemas; regenerate after an upgrade.",
    "function __umbel_workers; command umbel ls 2>/dev/null | awk 'NR > 1 { print $1 }'; end",
    "# True while the command has no argument yet (flags and their values do not count).",
    "function __umbel_no_argument",
    "    set -l tokens (commandline -opc)",
    "    for i in (seq 3 (count $tokens))",
    "        string match -q -- '-*' $tokens[$i]; and continue",
    "        contains -- $tokens[(math $i - 1)] $argv; and continue",
    "        return 1",
    "    end",
    "    return 0",
    "end",
    "complete -c umbel -f",
    ...commands.map(
      (c) => `complete -c umbel -n __fish_use_subcommand -a ${c.name} -d ${quote(shortText(c.summary))}`,
    ),
    ...commands.flatMap((c) => c.flags.map((f) => flagLine(c, f))),
    ...commands.flatMap(argumentLine),
  ];
  return `${lines.join("\n")}\n`;
}

function flagLine(c: CompletionCommand, f: FlagInfo): string {
  const parts = [`complete -c umbel -n ${quote(`__fish_seen_subcommand_from ${c.name}`)}`];
  if (f.alias) parts.push(`-s ${f.alias}`);
  parts.push(`-l ${f.flag.slice(2)}`);
  if (f.choices.length > 0) parts.push(`-x -a ${quote(f.choices.join(" "))}`);
  else if (f.completes === "dir") parts.push("-x -a '(__fish_complete_directories)'");
  else if (f.completes === "file") parts.push("-r -F");
  else if (f.hint !== null) parts.push("-x");
  parts.push(`-d ${quote(shortText(f.description))}`);
  return parts.join(" ");
}

function argumentLine(c: CompletionCommand): string[] {
  const when = quote(
    `__fish_seen_subcommand_from ${c.name}; and __umbel_no_argument ${valueFlags(c).join(" ")}`,
  );
  if (c.argument === "worker") return [`complete -c umbel -n ${when} -a '(__umbel_workers)' -d worker`];
  if (c.argument === "workflow") return [`complete -c umbel -n ${when} -F`];
  if (c.argument === "shell") return [`complete -c umbel -n ${when} -a ${quote(SHELLS.join(" "))}`];
  return [];
}

/** A single-quoted fish string (backslash and quote escaped). */
function quote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}
