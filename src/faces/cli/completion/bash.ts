import type { FlagInfo } from "../flags.ts";
import { type CompletionCommand, completionCommands, SHELLS, valueFlags } from "./model.ts";

/**
 * `umbel completion bash`: `source <(umbel completion bash)` in ~/.bashrc. Worker names come from
 * `umbel ls` (the first column of its table) at the moment Tab is pressed.
 */
export function renderBash(version: string): string {
  const commands = completionCommands();
  const names = commands.map((c) => c.name).join(" ");
  return `# bash completion for umbel ${version}: source <(umbel completion bash)
# Generated from umbel's verb table and schemas; regenerate after an upgrade.
_umbel_workers() { command umbel ls 2>/dev/null | awk 'NR > 1 { print $1 }'; }

_umbel() {
  local cur=\${COMP_WORDS[COMP_CWORD]} prev=\${COMP_WORDS[COMP_CWORD-1]} cmd=\${COMP_WORDS[1]}
  local flags="" values="" i word args=0
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "-p --print --help --version" -- "$cur"))
    else COMPREPLY=($(compgen -W "${names}" -- "$cur")); fi
    return 0
  fi
  case "$cmd" in
${commands.map(flagLists).join("\n")}
    *) return 0 ;;
  esac
  case "$cmd $prev" in
${commands.flatMap(valueCases).join("\n")}
  esac
  if [[ " $values " == *" $prev "* ]]; then return 0; fi
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$flags" -- "$cur")); return 0; fi
  # Arguments before this word that are neither flags nor their values.
  for ((i = 2; i < COMP_CWORD; i++)); do
    word=\${COMP_WORDS[i]}
    [[ $word == -* ]] && continue
    [[ " $values " == *" \${COMP_WORDS[i-1]} "* ]] && continue
    args=$((args + 1))
  done
  [ "$args" -eq 0 ] || return 0
  case "$cmd" in
${argumentCases(commands)}
  esac
  return 0
}
complete -F _umbel umbel
`;
}

function flagLists(c: CompletionCommand): string {
  const flags = c.flags.flatMap((f) => (f.alias ? [`-${f.alias}`, f.flag] : [f.flag])).join(" ");
  return `    ${c.name}) flags="${flags}"; values="${valueFlags(c).join(" ")}" ;;`;
}

function valueCases(c: CompletionCommand): string[] {
  return c.flags.flatMap((f: FlagInfo) => {
    const action =
      f.choices.length > 0
        ? `COMPREPLY=($(compgen -W "${f.choices.join(" ")}" -- "$cur"))`
        : f.completes === "dir"
          ? `COMPREPLY=($(compgen -d -- "$cur"))`
          : f.completes === "file"
            ? `COMPREPLY=($(compgen -f -- "$cur"))`
            : null;
    return action ? [`    "${c.name} ${f.flag}") ${action}; return 0 ;;`] : [];
  });
}

function argumentCases(commands: readonly CompletionCommand[]): string {
  const of = (kind: string) =>
    commands
      .filter((c) => c.argument === kind)
      .map((c) => c.name)
      .join("|");
  return [
    `    ${of("worker")}) COMPREPLY=($(compgen -W "$(_umbel_workers)" -- "$cur")) ;;`,
    `    ${of("workflow")}) COMPREPLY=($(compgen -f -- "$cur")) ;;`,
    `    ${of("shell")}) COMPREPLY=($(compgen -W "${SHELLS.join(" ")}" -- "$cur")) ;;`,
  ].join("\n");
}
