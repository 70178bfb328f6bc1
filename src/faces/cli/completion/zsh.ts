import type { FlagInfo } from "../flags.ts";
import { type CompletionCommand, completionCommands, SHELLS, shortText, valueFlags } from "./model.ts";

/**
 * `umbel completion zsh`: `source <(umbel completion zsh)` after compinit in ~/.zshrc, or save it
 * as `_umbel` in a folder of $fpath. Candidates go through compadd, so zsh's own matching applies.
 */
export function renderZsh(version: string): string {
  const commands = completionCommands();
  return `#compdef umbel
# zsh completion for umbel ${version}: source <(umbel completion zsh) after compinit,
# or save it as _umbel in a folder of $fpath. Generated from umbel's verb table and schemas.
_umbel_workers() { command umbel ls 2>/dev/null | awk 'NR > 1 { print $1 }' }

_umbel() {
  local cmd=\${words[2]} prev=\${words[CURRENT-1]} cur=\${words[CURRENT]}
  local -a flags values commands descriptions
  local i args=0
  if (( CURRENT == 2 )); then
    commands=(${commands.map((c) => c.name).join(" ")})
    descriptions=(${commands.map((c) => quote(`${c.name.padEnd(11)}-- ${shortText(c.summary)}`)).join(" ")})
    if [[ $cur == -* ]]; then compadd -- -p --print --help --version; else compadd -l -d descriptions -- $commands; fi
    return 0
  fi
  case $cmd in
${commands.map(flagLists).join("\n")}
    *) return 1 ;;
  esac
  case "$cmd $prev" in
${commands.flatMap(valueCases).join("\n")}
  esac
  (( \${values[(Ie)$prev]} )) && return 0
  if [[ $cur == -* ]]; then compadd -- $flags; return 0; fi
  # Arguments before this word that are neither flags nor their values.
  for (( i = 3; i < CURRENT; i++ )); do
    [[ \${words[i]} == -* ]] && continue
    (( \${values[(Ie)\${words[i-1]}]} )) && continue
    (( args++ ))
  done
  (( args == 0 )) || return 0
  case $cmd in
${argumentCases(commands)}
  esac
  return 0
}

if [[ \${funcstack[1]} == _umbel ]]; then _umbel "$@"; else compdef _umbel umbel; fi
`;
}

function flagLists(c: CompletionCommand): string {
  const flags = c.flags.flatMap((f) => (f.alias ? [`-${f.alias}`, f.flag] : [f.flag])).join(" ");
  return `    ${c.name}) flags=(${flags}); values=(${valueFlags(c).join(" ")}) ;;`;
}

function valueCases(c: CompletionCommand): string[] {
  return c.flags.flatMap((f: FlagInfo) => {
    const action =
      f.choices.length > 0
        ? `compadd -- ${f.choices.join(" ")}`
        : f.completes === "dir"
          ? "_files -/"
          : f.completes === "file"
            ? "_files"
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
    `    ${of("worker")}) compadd -- \${(f)"$(_umbel_workers)"} ;;`,
    `    ${of("workflow")}) _files -g '*.(yaml|yml)' ;;`,
    `    ${of("shell")}) compadd -- ${SHELLS.join(" ")} ;;`,
  ].join("\n");
}

/** A single-quoted zsh word. */
function quote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}
